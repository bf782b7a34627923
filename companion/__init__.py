"""companion: a referee, clock and recorder that sits beside a real board game.

Data flows one way: sources (camera frames, sensor scans) -> observations -> tracker ->
game engine -> journal -> page and outputs. The pure game core lives in ``companion.games``.
"""

__version__ = "0.1.0"
