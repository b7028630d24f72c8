#!/usr/bin/env bash
# `npm run lint:openapi`: the OpenAPI document the service serves, built from the Api definition
# (no server), linted by the two tools partners run, with their recommended rulesets — Redocly
# (`recommended`) and Spectral (`spectral:oas`). Any error or warning fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A public HTTPS BASE_URL, as in production (Redocly warns on localhost servers).
BASE_URL="${OPENAPI_LINT_BASE_URL:-https://marketplace.example.net}" npx tsx scripts/openapi-document.ts "$dir/openapi.json"
printf 'extends: ["spectral:oas"]\n' > "$dir/.spectral.yaml"
# No update check or telemetry calls from the linter.
export REDOCLY_SUPPRESS_UPDATE_NOTICE=true REDOCLY_TELEMETRY=off
# Redocly fails only on errors; its totals also count the warnings, which fail here too.
npx redocly lint "$dir/openapi.json" --extends=recommended --format=json >"$dir/redocly.json" 2>/dev/null || true
if ! node -e '
  const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).totals
  console.log(`Redocly: ${t.errors} errors, ${t.warnings} warnings`)
  process.exit(t.errors + t.warnings === 0 ? 0 : 1)
' "$dir/redocly.json"; then
  npx redocly lint "$dir/openapi.json" --extends=recommended --max-problems=200 || true
  exit 1
fi
npx spectral lint "$dir/openapi.json" --ruleset "$dir/.spectral.yaml" --fail-severity=warn --format=text
echo "OpenAPI document: Redocly and Spectral report no problems"
