#!/bin/sh
# The walk-through of the README's walk-through, command for command: WalkthroughTests runs it against a
# live relay on the virtual clock and checks that it prints exactly the outputs the document shows.
# Needs PORT, CA and ADMIN in the environment, and curl and jq on the PATH.
set -eu
: "${PORT:?set PORT}" "${CA:?set CA}" "${ADMIN:?set ADMIN}"

DEVICE=$(curl -sS --cacert "$CA" -H "authorization: Bearer $ADMIN" \
  -X POST "https://localhost:$PORT/v1/devices" | jq -r .deviceId)

ACTIVITY=$(curl -sS --cacert "$CA" -H "authorization: Bearer $ADMIN" "https://localhost:$PORT/v1/activities" \
  -d '{"deviceId": "'"$DEVICE"'", "bundleId": "com.example.pizza", "attributesType": "PizzaDeliveryAttributes",
       "attributes": {"orderNumber": 1042}, "contentState": {"status": "baking", "etaMinutes": 25}}' | jq -r .id)
curl -sS --cacert "$CA" -H "authorization: Bearer $ADMIN" "https://localhost:$PORT/v1/activities/$ACTIVITY" \
  | jq -c '{state, contentState}'

curl -sS --cacert "$CA" -H "authorization: Bearer $ADMIN" "https://localhost:$PORT/v1/activities/$ACTIVITY/update" \
  -d '{"contentState": {"status": "on the way", "etaMinutes": 10}}' | jq -c '{state, outcome, contentState}'

curl -sS --cacert "$CA" -H "authorization: Bearer $ADMIN" "https://localhost:$PORT/v1/clock" \
  -d '{"advanceBy": 28800}' | jq -c '{mode, rate}'
curl -sS --cacert "$CA" -H "authorization: Bearer $ADMIN" "https://localhost:$PORT/v1/activities/$ACTIVITY" \
  | jq -c '{state, endedAfter: (.endedAt - .startedAt), dismissedAfter: (.dismissAt - .endedAt)}'

curl -sS --cacert "$CA" -H "authorization: Bearer $ADMIN" "https://localhost:$PORT/v1/clock" \
  -d '{"advanceBy": 14400}' | jq -c '{mode, rate}'
curl -sS --cacert "$CA" -H "authorization: Bearer $ADMIN" "https://localhost:$PORT/v1/activities/$ACTIVITY" \
  | jq -c '{state}'
