"""2,000 seeded junk requests over every route of docs/http.md (random paths, methods, headers,
bodies and query strings; half of them logged in): no HTTP 500, no traceback logged."""

from __future__ import annotations

from tests.support.junk_requests import routes, send


def test_junk_requests_get_no_500_and_no_traceback() -> None:
    assert len(routes()) >= 20  # the doc's routes were found
    tally = send(2000, seed=1)
    assert tally.sent == 2000
    assert tally.by_status[500] == 0, tally.errors[:10]
    assert not tally.errors, tally.errors[:10]
    assert not tally.logged, tally.logged[:10]
    # The junk reached the routes, not only the 404 page: controls ran, archives answered.
    assert tally.by_status[200] > 300 and tally.by_status[403] > 50
