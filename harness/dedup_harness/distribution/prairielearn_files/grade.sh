#!/usr/bin/env bash
# PrairieLearn's entrypoint for each submission (externalGradingOptions.entrypoint): it lives in the
# course's serverFilesCourse/dedup-harness/, which PrairieLearn copies to /grade/serverFilesCourse and
# makes executable. It closes the course's files to the worker's uid, installs the harness's wheel from
# there into the image's venv (pip's index off, its hash checked: requirements.lock), checks the installed set
# against provenance.json's digest, then grades /grade/student into /grade/results/results.json, with the
# course's weights, allowed packages and seed for the cases it holds back. It exits 0 whenever it wrote
# results.json (PrairieLearn drops the results of an entrypoint that fails); when the harness cannot
# grade, results.json says so, gradable: false (no attempt lost, not a verdict on the code), and the
# job's log (staff's) says why. DEDUP_HARNESS_GRADE_ROOT and DEDUP_HARNESS_VENV point elsewhere for a test.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="${DEDUP_HARNESS_GRADE_ROOT:-/grade}"
venv="${DEDUP_HARNESS_VENV:-/opt/dedup-harness/venv}"
mkdir -p "$root/results"
for folder in "$here" "$root/serverFilesCourse" "$root/shared" "$root/tests" "$root/data"; do
    if [ -e "$folder" ]; then chmod -R go-rwx "$folder"; fi
done

cannot() {
    echo "grade.sh: FAILED: $*" >&2
    cat > "$root/results/results.json" <<'JSON'
{"gradable": false, "format_errors": ["The autograder could not grade this submission; this is not a verdict on your code. Course staff have been told."], "tests": []}
JSON
    exit 0
}

lock="$(mktemp)"  # the harness's own line of the lock (the image holds the rest)
grep '^dedup-harness==' "$here/requirements.lock" > "$lock"
PIP_CONFIG_FILE=/dev/null "$venv/bin/python" -m pip install --quiet --no-index --isolated --no-deps --no-compile \
    --find-links "$here" --require-hashes --only-binary=:all: -r "$lock" \
    || cannot "the harness's wheel could not be installed (pip's message is above)"
installed="$("$venv/bin/python" -I -m dedup_harness.core.provenance | sed -n 's/.*"digest": "\([^"]*\)".*/\1/p')"
tested="$(sed -n 's/^ *"digest": "\([^"]*\)".*/\1/p' "$here/provenance.json")"
if [ "$installed" != "$tested" ]; then cannot "the installed dependency set ($installed) is not the tested one ($tested)"; fi

options=()
if [ -f "$here/weights.toml" ]; then options+=(--weights "$here/weights.toml"); fi
if [ -f "$here/allowed.txt" ]; then
    while read -r name; do if [ -n "$name" ]; then options+=(--allow "$name"); fi; done < "$here/allowed.txt"
fi
if [ -f "$here/hidden-seed.txt" ]; then options+=(--hidden-seed "$(tr -d '[:space:]' < "$here/hidden-seed.txt")"); fi
if [ -f "$here/own-deps.txt" ]; then options+=(--own-deps); fi
# The terminal report (held-back cases and what the submission printed included) goes to the job's log.
"$venv/bin/python" -I -m dedup_harness.cli grade "$root/student" \
    --prairielearn "$root/results" --show-student-output --jobs 1 "${options[@]}"
status=$?
if [ ! -s "$root/results/results.json" ]; then cannot "grade exited with status $status and wrote no results.json"; fi
exit 0
