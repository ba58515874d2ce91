#!/usr/bin/env python3
"""Drives the relay's browser console in a real headless Chromium and checks what it shows.

The relay must run on a virtual clock standing still (rate 0). Pushes go through the provider API
with httpx over HTTP/2 (an APNs client, not the console); devices, activities and alarms are made
through the app API; the clock is moved with the console's own buttons.

Checks, in order (each failure raises and exits 1):
  - a wrong key shows a clear sign-in error; the admin key signs in;
  - a push's new content is on the Lock Screen card within one second of its 200;
  - the console's "send a push" form sends through the provider API and the card follows;
  - a push older than the last applied one is in the delivery log as `ignored` with its hint, and the
    log's apns-id and outcome filters find it;
  - after +8 h the Dynamic Island no longer shows the activity while the Lock Screen card stays, ended;
    four hours later the card is gone too;
  - at rate 1 an alarm countdown ticks, and after its Pause button it stands still;
  - no request of the page went to another origin, and the content security policy was never violated.

Screenshots go to OUT_DIR: lockscreen.png, island.png, overview.png (both with the
budgets), pushlog.png, ended.png, alarm.png, console.png (the whole page).

usage: console_browser.py BASE_URL ADMIN_KEY CAFILE PROVIDER_JWT OUT_DIR [CHROMIUM]
Requires: Python 3.9+, httpx with h2, playwright (`pip install httpx h2 playwright`), Debian's chromium.
"""

import json
import math
import os
import sys
import time
from urllib.parse import urlsplit

try:
    import httpx
    from playwright.sync_api import sync_playwright
except ImportError as error:
    print(f"missing package: {error.name}", file=sys.stderr)
    sys.exit(2)

base, admin_key, cafile, jwt, out_dir = sys.argv[1:6]
chromium = sys.argv[6] if len(sys.argv) > 6 else "/usr/bin/chromium"
origin = "{0.scheme}://{0.netloc}".format(urlsplit(base))
bundle = "com.example.pizza"
os.makedirs(out_dir, exist_ok=True)

app = httpx.Client(base_url=base, verify=cafile, http2=True, headers={"authorization": f"Bearer {admin_key}"})
provider = httpx.Client(base_url=base, verify=cafile, http2=True)


def step(text):
    print(f"console: {text}", flush=True)


def app_call(method, path, body=None):
    response = app.request(method, path, json=body)
    assert response.status_code in (200, 201), f"{method} {path}: {response.status_code} {response.text}"
    return response.json()


def push(token, aps, priority="10"):
    response = provider.post(
        f"/3/device/{token}",
        headers={
            "authorization": f"bearer {jwt}", "apns-push-type": "liveactivity", "apns-priority": priority,
            "apns-topic": f"{bundle}.push-type.liveactivity",
        },
        content=json.dumps({"aps": aps}).encode())
    assert response.http_version == "HTTP/2", response.http_version
    assert response.status_code == 200, f"push: {response.status_code} {response.text}"
    return response


def clock_now():
    return app_call("GET", "/v1/clock")["now"]


requests = []
console_errors = []

with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
    context = browser.new_context(
        ignore_https_errors=True, viewport={"width": 1360, "height": 1000}, device_scale_factor=1,
        color_scheme="dark", timezone_id="UTC", locale="en-US")
    page = context.new_page()
    page.on("request", lambda request: requests.append(request.url))
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    page.set_default_timeout(15000)

    # Sign-in: a wrong key is refused with a clear message, the admin key gets in.
    page.goto(base + "/")
    page.fill("#signin-key", "not-the-admin-key")
    page.click("#signin-button")
    page.wait_for_selector("#signin-error:not([hidden])")
    error_text = page.inner_text("#signin-error")
    assert "did not accept this key" in error_text, error_text
    assert page.is_hidden("#console")
    step(f"wrong key refused: {error_text}")
    page.fill("#signin-key", admin_key)
    page.click("#signin-button")
    page.wait_for_selector("#console:not([hidden])")
    page.wait_for_selector("#stream-status.live")
    assert page.input_value("#signin-key") == "", "the key stays in the input after sign-in"
    assert admin_key not in page.url
    step("signed in")

    # A device with two activities; the more relevant one leads the Dynamic Island.
    device = app_call("POST", "/v1/devices", {})["deviceId"]
    now = clock_now()
    pizza = app_call("POST", "/v1/activities", {
        "deviceId": device, "bundleId": bundle, "attributesType": "PizzaDeliveryAttributes",
        "attributes": {"title": "Order #4711"}, "relevanceScore": 80, "pushType": "token",
        "contentState": {"status": "Preparing", "progress": 0.2, "eta": int(now) + 1800, "driver": "—"},
    })
    score = app_call("POST", "/v1/activities", {
        "deviceId": device, "bundleId": "com.example.scores", "attributesType": "MatchAttributes",
        "attributes": {"title": "Lions vs Bears"}, "relevanceScore": 20,
        "contentState": {"score": "14 – 10", "quarter": "Q3"},
    })
    card = f'#lockscreen .activity-card[data-activity-id="{pizza["id"]}"]'
    page.wait_for_selector(card)
    page.wait_for_selector(f'#lockscreen .activity-card[data-activity-id="{score["id"]}"]')
    order = page.eval_on_selector_all("#lockscreen .activity-card", "cards => cards.map(c => c.dataset.activityId)")
    assert order == [pizza["id"], score["id"]], f"cards not ordered by relevance: {order}"
    assert page.locator(f'#island .compact[data-activity-id="{pizza["id"]}"]').count() == 1
    assert page.locator(f'#island .minimal[data-activity-id="{score["id"]}"]').count() == 1
    step("device and activities shown, ordered by relevance")

    # MatchAttributes has a template in the relay's config (console.templates); the pizza has none.
    score_card = f'#lockscreen .activity-card[data-activity-id="{score["id"]}"]'
    assert page.get_attribute(score_card, "data-template") == "MatchAttributes"
    assert page.inner_text(f"{score_card} .card-title") == "Lions vs Bears"
    labels = page.eval_on_selector_all(f"{score_card} .card-body .k", "nodes => nodes.map(n => n.textContent)")
    values = page.eval_on_selector_all(f"{score_card} .card-body .v", "nodes => nodes.map(n => n.textContent)")
    assert labels == ["Period", "Score"] and values == ["Q3", "14 – 10 pts"], (labels, values)
    minimal = page.inner_text(f'#island .minimal[data-activity-id="{score["id"]}"] .minimal-text')
    assert minimal == "14 – 10", minimal
    assert page.get_attribute(card, "data-template") is None
    generic = page.eval_on_selector_all(f"{card} .card-body .k", "nodes => nodes.map(n => n.textContent)")
    assert "Status" in generic and "Driver" in generic, generic
    step(f"templated card: {list(zip(labels, values))}; generic card: {generic}")

    # A push through the provider API: the card shows it within one second of the 200.
    # The clock stands still: a timestamp rounded up to the next whole second is never older than
    # the activity's start.
    pushed = push(pizza["pushToken"], {
        "timestamp": math.ceil(now), "event": "update",
        "content-state": {"status": "Out for delivery", "progress": 0.65, "eta": int(now) + 900, "driver": "Sam"},
        "alert": {"title": "Out for delivery", "body": "Sam is on the way with your pizza"},
        "stale-date": int(now) + 600,
    })
    answered = time.monotonic()
    page.wait_for_function(
        "selector => (document.querySelector(selector)?.textContent || '').includes('Out for delivery')",
        arg=card, timeout=1000)
    seen = time.monotonic() - answered
    assert seen <= 1.0, f"the card showed the push after {seen:.3f} s"
    page.wait_for_selector("#banner-slot .banner")
    page.wait_for_timeout(500)  # the banner's drop-in animation, for the screenshot
    step(f"push shown on the Lock Screen {seen * 1000:.0f} ms after its 200 (apns-id {pushed.headers['apns-id']})")
    # The push changed the future (a stale date): timeline.reload, and the Smart Stack shows the
    # new entry at the stale date, with the activity's deep link.
    page.wait_for_function(
        "date => JSON.parse(document.querySelector('#smartstack .widget-next')?.dataset.next || '[]').includes(date)",
        arg=int(now) + 600)
    links = page.eval_on_selector_all("#smartstack .deep-link", "nodes => nodes.map(n => n.getAttribute('href'))")
    assert f"activityrelay://activity/{pizza['id']}" in links, links
    step(f"Smart Stack: entry at the stale date after timeline.reload; links {links}")
    page.locator("#smartstack-panel").screenshot(path=os.path.join(out_dir, "smartstack.png"))
    page.locator("#phone").screenshot(path=os.path.join(out_dir, "lockscreen.png"))
    page.locator("#island-panel").screenshot(path=os.path.join(out_dir, "island.png"))
    page.locator(".stage").screenshot(path=os.path.join(out_dir, "overview.png"))

    # The console's own form: a signed push through the provider API, from the browser.
    page.select_option("#send-activity", pizza["id"])
    page.fill("#send-content", json.dumps({"status": "Arriving", "progress": 0.9, "eta": int(now) + 120, "driver": "Sam"}))
    page.click("#send-button")
    page.wait_for_function("() => document.querySelector('#send-result').textContent.startsWith('200')")
    page.wait_for_function(
        "selector => (document.querySelector(selector)?.textContent || '').includes('Arriving')", arg=card)
    step(f"console form sent: {page.inner_text('#send-result')[:60]}")

    # A push older than the last applied one: ignored, with a hint, in the delivery log.
    stale = push(pizza["pushToken"], {
        "timestamp": int(now) - 600, "event": "update", "content-state": {"status": "Old news", "progress": 0.1},
    })
    unique_id = stale.headers["apns-unique-id"]
    row = f'#log-rows tr.row[data-unique-id="{unique_id}"]'
    page.wait_for_selector(row)
    assert page.get_attribute(row, "data-outcome") == "ignored", page.get_attribute(row, "data-outcome")
    hint = page.inner_text(f"{row} td.hint")
    assert hint.strip(), "the ignored push has no hint"
    assert "Old news" not in page.inner_text(card)
    page.fill("#filter-apns-id", stale.headers["apns-id"])
    assert page.locator("#log-rows tr.row").count() == 1
    page.fill("#filter-apns-id", "")
    page.select_option("#filter-outcome", "ignored")
    assert page.locator("#log-rows tr.row").count() == 1
    page.select_option("#filter-outcome", "")
    page.click(row)
    page.wait_for_selector("#log-rows tr.details")
    details = page.inner_text("#log-rows tr.details")
    assert "redacted" in details and jwt not in details, "the provider token is not redacted in the log"
    step(f"stale push logged as ignored: {hint}")
    page.locator("#log-panel").screenshot(path=os.path.join(out_dir, "pushlog.png"))
    page.click(row)

    # Eight hours: the system ends the activity; the Island drops it, the Lock Screen keeps it.
    page.click("#advance-8h")
    page.wait_for_selector(f'{card}[data-state="ended"]')
    page.wait_for_function(
        "id => !document.querySelector(`#island [data-activity-id=\"${id}\"]`)"
        " && !document.querySelector(`#island-presentations [data-activity-id=\"${id}\"]`)",
        arg=pizza["id"])
    assert "leaves the Lock Screen in" in page.inner_text(f"{card} .lifetime")
    step("after 8 h: ended on the Lock Screen, gone from the Dynamic Island")
    page.locator("#phone").screenshot(path=os.path.join(out_dir, "ended.png"))

    # Four hours more: dismissed, off the Lock Screen.
    for _ in range(4):
        page.click("#advance-1h")
        page.wait_for_timeout(100)
    page.wait_for_selector(card, state="detached")
    step("after 12 h: gone from the Lock Screen")

    # An alarm countdown ticks at rate 1 and stands still once paused.
    page.fill("#clock-rate", "1")
    page.click("#clock-rate-set")
    page.wait_for_function("() => document.querySelector('#clock-mode').textContent.includes('rate 1')")
    alarm = app_call("POST", "/v1/alarms", {
        "deviceId": device, "bundleId": "com.example.tea", "countdownDuration": {"preAlert": 300},
        "presentation": {"alert": {"title": "Tea is ready"}, "countdown": {"title": "Tea"}, "paused": {"title": "Tea (paused)"}},
    })
    countdown = f'#lockscreen .countdown[data-alarm-id="{alarm["id"]}"]'
    page.wait_for_selector(countdown)
    first = page.inner_text(countdown)
    page.wait_for_function(
        "([selector, first]) => document.querySelector(selector)?.textContent !== first", arg=[countdown, first])
    second = page.inner_text(countdown)
    step(f"alarm countdown ticks: {first} -> {second}")
    page.locator("#phone").screenshot(path=os.path.join(out_dir, "alarm.png"))
    page.click(f'[data-alarm-card="{alarm["id"]}"] [data-alarm-action="pause"]')
    page.wait_for_selector(f'[data-alarm-card="{alarm["id"]}"][data-state="paused"]')
    paused = page.inner_text(countdown)
    page.wait_for_timeout(2500)
    assert page.inner_text(countdown) == paused, f"paused countdown moved: {paused} -> {page.inner_text(countdown)}"
    assert app_call("GET", f"/v1/alarms/{alarm['id']}")["state"] == "paused"
    step(f"alarm paused at {paused}")
    page.screenshot(path=os.path.join(out_dir, "console.png"), full_page=True)

    foreign = [url for url in requests if not url.startswith(origin + "/")]
    assert not foreign, f"the page requested other origins: {foreign}"
    violations = [text for text in console_errors if "Content Security Policy" in text]
    assert not violations, f"content security policy violations: {violations}"
    step(f"{len(requests)} requests, all to {origin}")
    browser.close()

print("console: all checks passed")
