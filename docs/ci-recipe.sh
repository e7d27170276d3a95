#!/bin/sh
# Sealmark in CI, one plain shell step: test the server, keep the reports,
# upload the SARIF log to code scanning. The arguments are what follows
# "sealmark run", usually -- and the server command:
#   sh ci-recipe.sh -- node {cwd}/dist/index.js {sandbox}
# Nothing is uploaded unless SARIF_UPLOAD_URL is set: the code scanning
# SARIF endpoint, e.g. https://api.github.com/repos/OWNER/REPO/code-scanning/sarifs,
# with SARIF_UPLOAD_TOKEN, COMMIT_SHA and GIT_REF (refs/heads/main).
set -u
sealmark=${SEALMARK:-sealmark}
status=0
"$sealmark" run --quiet --json sealmark.json --sarif sealmark.sarif --junit sealmark.xml "$@" || status=$?
if [ "$status" -ge 2 ]; then
  # 2: a usage or configuration error; 3: the server could not be tested.
  # Such a run's SARIF log has no results, and uploading it would close
  # every open alert as fixed.
  echo "sealmark exited $status: nothing tested, nothing uploaded" >&2
  exit "$status"
fi
if [ -n "${SARIF_UPLOAD_URL:-}" ]; then
  printf '{"commit_sha":"%s","ref":"%s","tool_name":"sealmark","sarif":"%s"}' \
    "${COMMIT_SHA:?set COMMIT_SHA}" "${GIT_REF:?set GIT_REF}" \
    "$(gzip -c sealmark.sarif | base64 | tr -d '\n')" >sealmark.upload.json
  # The token goes to curl on its stdin (printf is a shell builtin), never
  # on a command line another process could read.
  printf 'Authorization: Bearer %s\n' "${SARIF_UPLOAD_TOKEN:?set SARIF_UPLOAD_TOKEN}" |
    curl --fail --silent --show-error --max-time 60 -X POST -H @- \
      -H "Accept: application/vnd.github+json" \
      --data-binary @sealmark.upload.json "$SARIF_UPLOAD_URL" >/dev/null || exit 3
fi
exit "$status" # 0 clean, 1 findings at or above --fail-on: the step fails
