"""What a browser sends on a typed or pasted URL (``Sec-Fetch-Site: none``): a login link opened so signs in
at once; without the header the app shows its "Sign in as NAME" page (``app/pages/login.py``)."""

TYPED_URL = {"Sec-Fetch-Site": "none"}
