"""Regenerates map_data.txt from the Python port of libphonenumber.

The Python port ships libphonenumber's resources/timezones/map_data.txt as
generated code (phonenumbers/tzdata); this writes it back in the original
format (prefix|zone&zone), sorted by prefix length then prefix. Run from the
crate root after `pip install phonenumbers==<release>`, then update the
release named in the header and in docs/decisions.md.
"""
import phonenumbers
from phonenumbers.tzdata import TIMEZONE_DATA

HEADER = f"""# libphonenumber {phonenumbers.__version__} time-zone map (resources/timezones/map_data.txt):
# E.164 prefix (country calling code + national digits) | IANA zones, '&'-separated.
# Regenerated from the same release as shipped in the Python port
# (phonenumbers=={phonenumbers.__version__}, phonenumbers/tzdata), which is generated from that file.
#
# Copyright (C) 2011-2026 The Libphonenumber Authors
# Licensed under the Apache License, Version 2.0 (see LICENSE beside this file).
# Update: install phonenumbers==<release> and run data/timezones/regenerate.py."""

lines = [HEADER]
for prefix in sorted(TIMEZONE_DATA, key=lambda p: (len(p), p)):
    lines.append(f"{prefix}|{'&'.join(TIMEZONE_DATA[prefix])}")
with open("data/timezones/map_data.txt", "w") as out:
    out.write("\n".join(lines) + "\n")
