#!/usr/bin/env python3
"""Generate strict-E.164 destination strings and judge them with libphonenumber.

Usage: gen_and_judge.py OUTPUT_FILE

Writes one line per distinct input, TAB separated: input, verdict, reason, region,
type. The reason is one of syntax, unknown_calling_code, invalid, not_canonical,
ok; region ("-" if none, "001" for non-geographic entities) and type are
libphonenumber's reading of the parsed number. The verdict
follows the destination rules: strict syntax, parses without a default region,
valid, canonical E.164 equals the input, region in the allowed list, not premium
rate, not a US/CA exchange 976.

Exits with status 3 (and a message) when phonenumbers 9.0.33 is not installed.
"""

import random
import re
import sys

from pinned import require

phonenumbers = require()
from phonenumbers import NumberParseException, PhoneNumberFormat, PhoneNumberType  # noqa: E402

SEED = 20250917
MIN_INPUTS = 300_000
STRICT = re.compile(r"\+[1-9][0-9]{1,14}")
ALLOWED = {"US", "CA", "GB", "AU", "NZ", "IL"}
TYPES = [
    PhoneNumberType.FIXED_LINE,
    PhoneNumberType.MOBILE,
    PhoneNumberType.TOLL_FREE,
    PhoneNumberType.PREMIUM_RATE,
    PhoneNumberType.SHARED_COST,
    PhoneNumberType.VOIP,
    PhoneNumberType.PERSONAL_NUMBER,
    PhoneNumberType.PAGER,
    PhoneNumberType.UAN,
    PhoneNumberType.VOICEMAIL,
]
DIGITS = "0123456789"
DESC_ATTRS = ("general_desc", "fixed_line", "mobile", "toll_free", "premium_rate", "shared_cost",
              "voip", "personal_number", "pager", "uan", "voicemail")

try:  # Python 3.11+
    from re import _constants as sre_c, _parser as sre_parse
except ImportError:  # pragma: no cover
    import sre_constants as sre_c
    import sre_parse


def sample(rng, pattern):
    """A random digit string matching a metadata regex (digits, classes,
    groups, alternation, bounded repeats; anchors match nothing)."""
    out = []

    def walk(items):
        for op, arg in items:
            if op == sre_c.LITERAL:
                out.append(chr(arg))
            elif op == sre_c.IN:
                chars = []
                for cop, carg in arg:
                    if cop == sre_c.LITERAL:
                        chars.append(chr(carg))
                    elif cop == sre_c.RANGE:
                        chars.extend(chr(c) for c in range(carg[0], carg[1] + 1))
                    elif cop == sre_c.CATEGORY:
                        chars.extend(DIGITS)
                out.append(rng.choice(chars))
            elif op == sre_c.CATEGORY:
                out.append(rng.choice(DIGITS))
            elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
                low, high, sub = arg
                for _ in range(rng.randint(low, min(high, low + 6))):
                    walk(sub)
            elif op == sre_c.SUBPATTERN:
                walk(arg[-1])
            elif op == sre_c.BRANCH:
                walk(rng.choice(arg[1]))
            elif op == sre_c.ANY:
                out.append(rng.choice(DIGITS))
            # AT (anchors) and anything else: nothing to emit.

    walk(sre_parse.parse(pattern))
    return "".join(out)


def metadata_by_code():
    """(calling code, main-region metadata, all metadata for the code)."""
    out = []
    for cc, regions in sorted(phonenumbers.COUNTRY_CODE_TO_REGION_CODE.items()):
        metas = [phonenumbers.PhoneMetadata.metadata_for_region_or_calling_code(cc, r)
                 for r in regions]
        metas = [m for m in metas if m is not None]
        if metas:
            out.append((cc, metas[0], metas))
    return out


def judge(text):
    """Return (verdict, reason, region, type) for one input."""
    if not STRICT.fullmatch(text):
        return "invalid_number", "syntax", "-", "-"
    try:
        number = phonenumbers.parse(text, None)
    except NumberParseException as err:
        if err.error_type == NumberParseException.INVALID_COUNTRY_CODE:
            return "invalid_number", "unknown_calling_code", "-", "-"
        return "invalid_number", "invalid", "-", "-"
    region = phonenumbers.region_code_for_number(number) or "-"
    kind = PhoneNumberType.to_string(phonenumbers.number_type(number))
    if not phonenumbers.is_valid_number(number):
        return "invalid_number", "invalid", region, kind
    if phonenumbers.format_number(number, PhoneNumberFormat.E164) != text:
        return "invalid_number", "not_canonical", region, kind
    if region not in ALLOWED:
        return "destination_blocked", "ok", region, kind
    if phonenumbers.number_type(number) == PhoneNumberType.PREMIUM_RATE:
        return "destination_blocked", "ok", region, kind
    nsn = phonenumbers.national_significant_number(number)
    if region in ("US", "CA") and nsn[3:6] == "976":
        return "destination_blocked", "ok", region, kind
    return "accepted", "ok", region, kind


def rand_digits(rng, n):
    return "".join(rng.choice(DIGITS) for _ in range(n))


def examples():
    """(calling code, national number) for every region's and entity's example of every type."""
    out = []
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        cc = phonenumbers.country_code_for_region(region)
        for kind in TYPES:
            ex = phonenumbers.example_number_for_type(region, kind)
            if ex is not None:
                out.append((cc, phonenumbers.national_significant_number(ex)))
    for cc in sorted(phonenumbers.COUNTRY_CODES_FOR_NON_GEO_REGIONS):
        meta = phonenumbers.PhoneMetadata.metadata_for_nongeo_region(cc)
        for attr in ("general_desc", "fixed_line", "mobile", "toll_free", "premium_rate",
                     "shared_cost", "voip", "personal_number", "pager", "uan", "voicemail"):
            desc = getattr(meta, attr, None)
            if desc is not None and desc.example_number:
                out.append((cc, desc.example_number))
    return sorted(set(out))


def mutations(rng, cc, nsn):
    """Single edits, truncations, extensions and randomised tails of one number."""
    p = f"+{cc}"
    n = len(nsn)
    yield p + nsn
    for i in range(n):
        yield p + nsn[:i] + rng.choice(DIGITS.replace(nsn[i], "")) + nsn[i + 1:]
        yield p + nsn[:i] + nsn[i + 1:]
    for i in range(n + 1):
        yield p + nsn[:i] + rng.choice(DIGITS) + nsn[i:]
    for k in range(1, n):
        yield p + nsn[:k]
    for extra in range(1, 4):
        yield p + nsn + rand_digits(rng, extra)
    for k in range(n):
        for _ in range(3):
            yield p + nsn[:k] + rand_digits(rng, n - k)
    # Keep most digits, randomise the tail: mostly valid numbers of the same range.
    for tail in range(1, min(n, 7)):
        for _ in range(6):
            yield p + nsn[:-tail] + rand_digits(rng, tail)


def trunk_prefixed(rng, cc, nsn, region):
    """National/trunk/carrier prefixes inserted after the calling code."""
    p = f"+{cc}"
    prefixes = {"0", "1", "8", "9", "00", "01", "06", "10", "15", "80", "90"}
    if region is not None:
        national = phonenumbers.ndd_prefix_for_region(region, True)
        if national:
            prefixes.add(national)
    for prefix in sorted(prefixes):
        yield p + prefix + nsn
        yield p + prefix + nsn[:-1]
        for _ in range(3):
            yield p + prefix + nsn[:-3] + rand_digits(rng, 3)
    for _ in range(4):
        yield p + rand_digits(rng, rng.randint(1, 4)) + nsn


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rng = random.Random(SEED)
    inputs = set()

    calling_codes = sorted(phonenumbers.COUNTRY_CODE_TO_REGION_CODE)
    main_region = {cc: phonenumbers.region_code_for_country_code(cc) for cc in calling_codes}

    # Mutated examples of every region and type.
    exs = examples()
    for cc, nsn in exs:
        inputs.update(mutations(rng, cc, nsn))
        region = main_region.get(cc)
        inputs.update(trunk_prefixed(rng, cc, nsn, None if region == "001" else region))

    # Numbers as dialled nationally (trunk prefix, carrier codes, AR's "15"),
    # written after the calling code, with randomised tails.
    for cc, nsn in exs:
        number = phonenumbers.PhoneNumber(country_code=cc, national_number=int(nsn))
        if nsn.startswith("0"):
            number.italian_leading_zero = True
            number.number_of_leading_zeros = len(nsn) - len(nsn.lstrip("0")) or 1
        forms = {phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL)}
        for carrier in ("15", "21", "31", "41"):
            forms.add(phonenumbers.format_national_number_with_carrier_code(number, carrier))
        for form in sorted(forms):
            digits = phonenumbers.normalize_digits_only(form)
            inputs.add(f"+{cc}{digits}")
            for _ in range(5):
                inputs.add(f"+{cc}{digits[:-3]}{rand_digits(rng, 3)}")

    # Random numbers drawn from every descriptor pattern of every region, as
    # they are and behind a sampled national prefix (trunk/carrier code):
    # valid numbers of every type, including ones that themselves begin with
    # something the national-prefix rule would strip.
    for cc, main, metas in metadata_by_code():
        npfp = main.national_prefix_for_parsing
        for meta in metas:
            for attr in DESC_ATTRS:
                desc = getattr(meta, attr, None)
                if desc is None or not desc.national_number_pattern:
                    continue
                for _ in range(40):
                    nsn = sample(rng, desc.national_number_pattern)
                    inputs.add(f"+{cc}{nsn}")
                    if npfp:
                        inputs.add(f"+{cc}{sample(rng, npfp)}{nsn}")
                    if meta.leading_digits:
                        lead = sample(rng, meta.leading_digits)
                        inputs.add(f"+{cc}{lead}{nsn[len(lead):]}")

    # Random digit strings per calling code, every national length.
    for cc in calling_codes:
        for length in range(1, 15 - len(str(cc)) + 1):
            for _ in range(60):
                inputs.add(f"+{cc}" + rand_digits(rng, length))

    # NANP: random area codes and exchanges, and exchange 976.
    for _ in range(25_000):
        inputs.add("+1" + rng.choice("23456789") + rand_digits(rng, 2)
                   + rng.choice("23456789") + rand_digits(rng, 6))
    for _ in range(8_000):
        inputs.add("+1" + rng.choice("23456789") + rand_digits(rng, 2) + "976" + rand_digits(rng, 4))
    for cc, nsn in exs:
        if cc == 1:
            for _ in range(20):
                inputs.add("+1" + nsn[:3] + "976" + rand_digits(rng, 4))

    structured = len(inputs)
    # Unassigned and shared codes, and anything at all of strict syntax.
    while len(inputs) < max(structured + 40_000, MIN_INPUTS + 50_000):
        inputs.add("+" + rng.choice("123456789") + rand_digits(rng, rng.randint(1, 14)))

    rows = sorted(inputs)
    counts = {}
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for text in rows:
            verdict, reason, region, kind = judge(text)
            counts[reason] = counts.get(reason, 0) + 1
            counts[verdict] = counts.get(verdict, 0) + 1
            out.write(f"{text}\t{verdict}\t{reason}\t{region}\t{kind}\n")
    print(f"generated {len(rows)} inputs ({structured} structured): {counts}")


if __name__ == "__main__":
    main()
