"""Every script in ``bench/`` has its row in docs/development.md's table of benchmarks, and the
table names no script that is gone."""

import re

from helpers import PROJECT_ROOT


def test_every_bench_is_in_the_development_notes_table():
    text = (PROJECT_ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    section = text.split("\n## Benchmarks\n", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `(bench/[\w.]+\.py)` \|", section, flags=re.MULTILINE))
    present = {f"bench/{path.name}" for path in (PROJECT_ROOT / "bench").glob("*.py")}
    assert listed == present
