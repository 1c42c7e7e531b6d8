#!/usr/bin/env python3
"""Numbers and their time zones, as libphonenumber gives them.

Usage: time_zones.py OUTPUT_FILE

Writes one line per number, TAB separated: the E.164 number, then its zones
joined by '&' (empty where libphonenumber answers Etc/Unknown), from
phonenumbers.timezone.time_zones_for_geographical_number, the lookup the
crate's schedule::time_zones mirrors. Numbers: completions of every prefix of
the time-zone map at several lengths, and random numbers under every calling
code (fixed seed), kept when they parse and format back to themselves.

Exits with status 3 (and a message) when phonenumbers 9.0.33 is not installed.
"""

import random
import sys

from pinned import require

phonenumbers = require()
from phonenumbers import PhoneNumberFormat  # noqa: E402
from phonenumbers.timezone import UNKNOWN_TIMEZONE, time_zones_for_geographical_number  # noqa: E402
from phonenumbers.tzdata import TIMEZONE_DATA  # noqa: E402

rng = random.Random(19)
candidates = set()
for prefix in TIMEZONE_DATA:
    for length in (len(prefix) + 1, 10, 11, 12, 13):
        if length > len(prefix):
            digits = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix)))
            candidates.add("+" + digits)
for code in phonenumbers.COUNTRY_CODE_TO_REGION_CODE:
    for _ in range(40):
        length = rng.randint(len(str(code)) + 4, 15)
        candidates.add("+" + str(code) + "".join(rng.choice("0123456789") for _ in range(length - len(str(code)))))

written = 0
with open(sys.argv[1], "w") as out:
    for number in sorted(candidates):
        try:
            parsed = phonenumbers.parse(number)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.format_number(parsed, PhoneNumberFormat.E164) != number:
            continue
        zones = [z for z in time_zones_for_geographical_number(parsed) if z != UNKNOWN_TIMEZONE]
        out.write(f"{number}\t{'&'.join(zones)}\n")
        written += 1
print(f"time zones: {written} numbers judged by phonenumbers {phonenumbers.__version__}")
