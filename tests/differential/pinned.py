"""The libphonenumber release the differential scripts judge with.

`require()` returns the `phonenumbers` module, or exits with status 3 (the
Rust tests' "skipped" status) and says what to install.
"""

import sys

REQUIRED_VERSION = "9.0.33"


def require():
    try:
        import phonenumbers
    except ImportError:
        print(f"skipped: install phonenumbers=={REQUIRED_VERSION} (pip)")
        sys.exit(3)
    if phonenumbers.__version__ != REQUIRED_VERSION:
        print(f"skipped: install phonenumbers=={REQUIRED_VERSION} (pip), found {phonenumbers.__version__}")
        sys.exit(3)
    return phonenumbers
