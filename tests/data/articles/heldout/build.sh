#!/usr/bin/env bash
# Rebuild the three HELD-OUT articles and references.jsonl, then run the checks.
# Needs: pdflatex (TeX Live), soffice (LibreOffice), the project venv with python-docx and pypdfium2.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PY="${PY:-$HERE/../../../../.venv/bin/python}"

# 1. Portuguese LaTeX article (fixed PDF date for reproducibility: 2023-05-30 UTC)
cd "$HERE/pt_latex"
export SOURCE_DATE_EPOCH=1685404800 FORCE_SOURCE_DATE=1
pdflatex -interaction=nonstopmode -halt-on-error article.tex >/dev/null
pdflatex -interaction=nonstopmode -halt-on-error article.tex >/dev/null
rm -f article.aux article.log article.out
unset SOURCE_DATE_EPOCH FORCE_SOURCE_DATE

# 2. Portuguese and English Word articles: python-docx -> LibreOffice PDF
for d in pt_docx en_docx; do
  cd "$HERE/$d"
  "$PY" build_docx.py
  soffice --headless --convert-to pdf --outdir . article.docx >/dev/null
done

# 3. annotations + checks
cd "$HERE"
"$PY" make_references.py
"$PY" check_references.py
