"""The public reader: both stone readers behind one base class, each a subclass chosen by name."""

from __future__ import annotations

import pytest

from companion.errors import VisionError
from companion.vision.pipeline import read_photo
from companion.vision.read_stones import (
    DEFAULT_READER,
    READERS,
    ClassicReader,
    NetReader,
    Region,
    StoneReader,
    check_reader,
    read_board,
)
from companion.vision.render import render_board
from tests.support.boards import SCATTERED_9

ROWS = SCATTERED_9


def test_readers_are_named_and_a_wrong_name_is_refused() -> None:
    assert set(READERS) == {"classic", "net"} and DEFAULT_READER in READERS
    assert check_reader("net") == "net"
    for bad in ("Net", "", None, 3):
        with pytest.raises(VisionError, match="classic, net"):
            check_reader(bad)
    r = render_board(ROWS, size=9, seed=2)
    with pytest.raises(VisionError):
        StoneReader([Region.grid(r.corners[0], 9)], (640, 480), reader="cnn")


def test_each_reader_is_a_subclass_built_by_name() -> None:
    """StoneReader(..., reader=NAME) builds that reader's class (the default without a name);
    the net reader measures no classic cues, and a class asked to be the other is refused."""
    r = render_board(ROWS, size=9, seed=2)
    region = Region.grid(r.corners[0], 9)
    size = (r.image.shape[1], r.image.shape[0])
    classic = StoneReader([region], size, reader="classic")
    net = StoneReader([region], size, reader="net")
    assert type(classic) is ClassicReader and type(net) is NetReader
    assert type(StoneReader([region], size)).kind == DEFAULT_READER
    assert not hasattr(net, "features") and hasattr(classic, "features")
    assert NetReader([region], size).read(r.image).states == net.read(r.image).states
    with pytest.raises(VisionError, match="asked to be the classic reader"):
        NetReader([region], size, reader="classic")


@pytest.mark.parametrize("name", READERS)
def test_each_reader_reads_a_rendered_board(name: str) -> None:
    """Both readers: every stone of a plain rendered board in its colour, no wrong colour."""
    r = render_board(ROWS, size=9, seed=11, tilt=20)
    obs = read_board(r.image, r.corners[0], 9, reader=name)
    wrong = [i for i, (a, b) in enumerate(zip(r.tokens, obs.states, strict=True)) if b != a]
    assert wrong == [], (name, obs.rows(9))
    assert ("probabilities" in obs.extra) == (name == "net")


def test_only_the_net_reader_has_board_views() -> None:
    r = render_board(ROWS, size=9, seed=4)
    size = (r.image.shape[1], r.image.shape[0])
    region = Region.grid(r.corners[0], 9)
    net = StoneReader([region], size, reader="net")
    assert net.kind == "net" and "net" in repr(net)
    (view,) = net.views(r.image)
    assert view.shape == (96, 96, 3)
    assert net.probabilities(r.image).shape == (81, 4)
    classic = StoneReader([region], size, reader="classic")
    assert classic.net is None
    with pytest.raises(VisionError, match="no board views"):
        classic.views(r.image)


def test_a_model_needs_the_net_reader() -> None:
    r = render_board(ROWS, size=9, seed=4)
    with pytest.raises(VisionError, match="net reader"):
        read_photo(r.image, size=9, corners=r.corners[0], reader="classic", model=b"x")
    with pytest.raises(VisionError, match="cannot be loaded"):
        read_photo(r.image, size=9, corners=r.corners[0], reader="net", model=b"x")
    with pytest.raises(VisionError, match="unknown reader"):
        read_photo(r.image, size=9, corners=r.corners[0], reader="magic")


def test_the_net_reader_needs_no_offset_model() -> None:
    """An oblique photo: the net's patch covers wherever a stone's top can sit, so its region
    keeps no offset model (the classic reader measures one first)."""
    r = render_board(ROWS, size=9, seed=3, tilt=35)
    net = read_board(r.image, r.corners[0], 9, reader="net")
    assert net.extra["offset"] == {"a": 0.0, "b": [0.0, 0.0]}


def test_the_net_reader_looks_again_where_stone_tops_lean() -> None:
    """A board seen from a camera beyond its last row (the far side narrower): the net reader's
    probabilities are the network's, unsure spots read again with the patches re-cut up the
    view (away from the camera) by the grid's lean; sure spots keep their first reading."""
    import numpy as np

    from companion.vision.stone_net import LOOK, StoneNet, lean_shifts

    corners = [[470.0, 170.0], [810.0, 170.0], [930.0, 620.0], [350.0, 620.0]]
    r = render_board(ROWS, size=9, seed=6, corners=corners)
    size = (r.image.shape[1], r.image.shape[0])
    region = Region.grid(r.corners[0], 9)
    lean = lean_shifts(region.H, 9, 9)
    assert lean and all(dy < 0 for _, dy in lean)
    reader = StoneReader([region], size, reader="net")
    plain = StoneReader([region], size, reader="net", net=StoneNet(look=0.0))
    (view,) = reader.views(r.image)
    first = plain.probabilities(r.image)
    got = reader.probabilities(r.image)
    assert reader.net is not None
    assert np.allclose(got, reader.net.second_look(view, first, lean), atol=1e-6)
    sure = first.max(axis=1) >= LOOK
    assert np.array_equal(got[sure], first[sure])
    assert not sure.all() and not np.array_equal(got[~sure], first[~sure])
