"""Tests for companion (package marker so test modules have unique names)."""
