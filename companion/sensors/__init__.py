"""Magnetic sensor grids (gpiozero devices) and their simulated twin."""
