"""Camera reading: find the board, calibration profiles, read stones, render test boards."""
