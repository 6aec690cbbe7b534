"""docs/layout.md's module tree is the checkout's (`scripts/layout_page.py` writes it): a module added, moved or
removed without rewriting the page fails here, so the page cannot list a folder or a file that is not there."""

from __future__ import annotations

import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


def test_the_layout_page_is_the_tree_as_it_is():
    import layout_page

    assert layout_page.main(["--check"]) == 0, "run: python scripts/layout_page.py"


def test_a_module_the_page_does_not_know_makes_it_stale(tmp_path, monkeypatch):
    import layout_page

    package = tmp_path / "rqrag"
    package.mkdir()
    (package / "__init__.py").write_text('"""The core."""\n')
    (package / "old.py").write_text('"""An old module. More words."""\n')
    monkeypatch.setattr(layout_page, "ROOT", tmp_path)
    monkeypatch.setattr(layout_page, "package_folders", lambda: ("rqrag",))
    monkeypatch.setattr(layout_page, "PAGE", tmp_path / "layout.md")
    layout_page.PAGE.write_text(f"# Layout\n\n{layout_page.BEGIN}\n{layout_page.END}\n")
    assert layout_page.main([]) == 0 and "| `old.py` | An old module. |" in layout_page.PAGE.read_text()
    assert layout_page.main(["--check"]) == 0
    (package / "new.py").write_text('"""A new module."""\n')
    assert layout_page.main(["--check"]) == 1
    (package / "old.py").unlink()
    layout_page.main([])
    assert "old.py" not in layout_page.PAGE.read_text() and "`new.py` | A new module." in layout_page.PAGE.read_text()
