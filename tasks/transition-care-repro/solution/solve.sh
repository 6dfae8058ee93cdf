#!/bin/sh
# Oracle: install the corrected analysis code, rerun the pipeline, compare with the paper.
set -eu
cp -r /solution/app/. /app/
cd /app
python3 run_pipeline.py --raw data/raw --out results
python3 compare_paper.py --paper paper --results results/results.json --out results/discrepancies.json
python3 checks/public_checks.py
