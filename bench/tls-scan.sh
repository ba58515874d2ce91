#!/usr/bin/env bash
# TLS scan: Debian's testssl.sh (`apt-get install testssl.sh`) against `activity-relay serve` on
# loopback with its own certificate (added as a trusted CA, so the chain check is meaningful):
# protocols, cipher categories, the server's preferences and defaults, HTTP headers and every
# vulnerability check (-p -s -P -S -h -U). Prints testssl's own report, then a summary from its
# JSON output: the offered protocols, each check of the goals (nothing below TLS 1.2, no weak
# cipher category, no known vulnerability, secure renegotiation) and every finding testssl rates
# LOW or worse, marked as explained (OCSP, HSTS, browser security headers, and the self-signed
# development certificate's 10-year validity and lack of revocation data; see bench/RESULTS.md)
# or not.
#
#   bench/tls-scan.sh
#
# Environment: RELAY (default .build/release/activity-relay, built if missing), KEEP=1 keeps the
# work directory with testssl's JSON. Exit status 0 when every goal holds and every finding is
# explained, 1 otherwise.
set -euo pipefail

NAME=tls-scan
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RELAY=${RELAY:-$ROOT/.build/release/activity-relay}
. "$HERE/lib.sh"
command -v testssl >/dev/null || { echo "tls-scan: testssl not found (apt-get install testssl.sh)" >&2; exit 1; }

[ -x "$RELAY" ] || swift build -c release --package-path "$ROOT" --product activity-relay
PORT=$(free_port)
mkdir -m 700 -p "$DATA"
"$RELAY" serve --data "$DATA" --listen "127.0.0.1:$PORT" 2>"$WORK/relay.log" &
RELAY_PID=$!
wait_for "https://localhost:$PORT/healthz" "$DATA/tls-cert.pem" 200
echo "tls-scan: testssl.sh $(dpkg-query -W -f='${Version}' testssl.sh 2>/dev/null), commit $(git -C "$ROOT" rev-parse --short HEAD), $(date -u '+%F %H:%M') UTC"
testssl --quiet --color 0 --warnings off --ip 127.0.0.1 --add-ca "$DATA/tls-cert.pem" \
    --jsonfile "$WORK/testssl.json" -p -s -P -S -h -U "localhost:$PORT" || true
python3 - "$WORK/testssl.json" <<'PY'
import json, sys
findings = json.load(open(sys.argv[1]))
by_id = {f["id"]: f for f in findings}
bad = ("LOW", "MEDIUM", "HIGH", "CRITICAL")
# Findings that follow from the development setup, not from the relay's TLS: the relay makes its own
# self-signed certificate (no OCSP or CRL URI, no certificate transparency, no stapling), and it is
# an API server, not a website (no HSTS header; see bench/RESULTS.md).
explained = {
    "OCSP_stapling": "no OCSP responder for a self-signed certificate; a deployment's CA certificate brings one",
    "cert_crlDistributionPoints": "self-signed: no CRL",
    "cert_ocspURL": "self-signed: no OCSP URI",
    "cert_revocation": "self-signed: no CRL or OCSP URI",
    "cert_certificateTransparency": "self-signed: no SCTs",
    "cert_caIssuers": "self-signed: no issuer to point at",
    "HSTS": "API server on a dedicated port; HSTS only matters to browsers following http:// links",
    "DNS_CAArecord": "loopback name: no DNS CAA record",
    "cert_expirationStatus": "development certificate",
    "cert_validityPeriod": "the generated development certificate lasts 10 years so it is trusted once; the "
                           "398-day limit is for publicly trusted certificates, which a deployment brings (tls.certificate)",
    "security_headers": "X-Frame-Options, CSP and the like protect HTML pages in browsers; the relay serves JSON "
                        "and event streams only",
}
def status(id_):
    f = by_id.get(id_)
    return "%s %s" % (f["severity"], f["finding"]) if f else "not reported"
print()
print("summary")
print("  protocols offered: " + ", ".join(p for p in ("SSLv2", "SSLv3", "TLS1", "TLS1_1", "TLS1_2", "TLS1_3")
                                         if p in by_id and by_id[p]["finding"].startswith("offered")))
goals = []
for p in ("SSLv2", "SSLv3", "TLS1", "TLS1_1"):
    goals.append(("no " + p, p in by_id and "not offered" in by_id[p]["finding"]))
for c in ("cipherlist_NULL", "cipherlist_aNULL", "cipherlist_EXPORT", "cipherlist_LOW", "cipherlist_3DES_IDEA",
          "cipherlist_AVERAGE", "cipherlist_OBSOLETED"):
    if c in by_id:
        goals.append(("no " + c[len("cipherlist_"):] + " ciphers", "not offered" in by_id[c]["finding"]))
goals.append(("secure renegotiation", by_id.get("secure_renego", {}).get("severity") == "OK"
              or "not vulnerable" in by_id.get("secure_renego", {}).get("finding", "")
              or "supported" in by_id.get("secure_renego", {}).get("finding", "")))
vulns = ("heartbleed", "CCS", "ticketbleed", "ROBOT", "secure_client_renego", "CRIME_TLS", "BREACH", "POODLE_SSL",
         "fallback_SCSV", "SWEET32", "FREAK", "DROWN", "LOGJAM", "BEAST", "LUCKY13", "RC4", "winshock", "opossum")
for v in vulns:
    if v in by_id:
        goals.append(("not vulnerable: " + v, by_id[v]["severity"] in ("OK", "INFO")))
for name, ok in goals:
    print("  %-34s %s" % (name, "ok" if ok else "FAILED"))
for v in ("secure_renego", "secure_client_renego", "OCSP_stapling", "HSTS"):
    print("  %-34s %s" % (v, status(v)))
unexplained = 0
print("  findings rated LOW or worse:")
for f in findings:
    if f["severity"] in bad:
        note = explained.get(f["id"])
        if note is None:
            unexplained += 1
        print("    %s %s: %s -- %s" % (f["severity"], f["id"], f["finding"], note or "NOT EXPLAINED"))
ok = all(ok for _, ok in goals) and unexplained == 0
print("tls-scan: " + ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
