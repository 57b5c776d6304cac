"""Helpers shared by the tests (tiny models, accelerate ranks, a synthetic run folder, the e5
encoder)."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
