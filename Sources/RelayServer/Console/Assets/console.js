// ActivityRelay console: renders what the emulated iPhones show, live from the relay's event stream.
//
// The key lives in this closure only (never in storage, a cookie or a URL). The event stream is
// opened with a single-use stream ticket minted with the key; every other call sends the key in the
// authorization header. Everything time-based ticks locally from the relay's clock (now and rate).
'use strict';

(() => {
  const OUTCOMES = ['applied', 'started', 'deferred', 'ignored', 'dropped', 'rejected', 'injected', 'broadcast'];
  const EVENT_TYPES = [
    'activity.started', 'activity.updated', 'activity.stale', 'activity.ended', 'activity.dismissed',
    'activity.pushToken', 'alarm.updated', 'alarm.removed', 'push.received', 'clock', 'snapshot', 'timeline.reload',
  ];
  const MAX_PUSHES = 1000;
  const BANNER_SECONDS = 6;

  let key = null;
  let me = null;
  let devices = [];
  let selectedDevice = null;
  const activities = new Map();
  const alarms = new Map();
  let pushes = [];
  let clock = null;
  let clockReal = 0;
  let stream = null;
  let lastSeq = null;
  let reconnectTimer = null;
  let providerToken = null;
  let banners = [];
  let tickers = [];
  const expandedPushes = new Set();
  let contentEdited = false;
  let templates = {};
  let timeline = null;

  const $ = (id) => document.getElementById(id);

  // MARK: - DOM helpers (text only: nothing from the relay is ever parsed as HTML)

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === 'class') node.className = value;
      else if (name === 'text') node.textContent = value;
      else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /// A node whose text follows the clock: `fn()` runs at every tick.
  function ticking(node, fn) {
    tickers.push({ node, fn });
    node.textContent = fn();
    return node;
  }

  // MARK: - Clock

  function clockNow() {
    if (!clock) return Date.now() / 1000;
    return clock.now + (Date.now() / 1000 - clockReal) * (clock.rate || 0);
  }

  function setClock(value) {
    if (!value || typeof value.now !== 'number') return;
    // A jump of the virtual clock leaves any banner far in the past.
    if (clock && Math.abs(value.now - clockNow()) > 5) banners = [];
    clock = value;
    clockReal = Date.now() / 1000;
    $('clock-mode').textContent = clock.mode === 'virtual' ? `virtual clock · rate ${clock.rate}` : 'system clock';
    $('clock-controls').hidden = clock.mode !== 'virtual' || me?.principal !== 'admin';
    if (document.activeElement !== $('clock-rate')) $('clock-rate').value = String(clock.rate);
  }

  const pad = (n) => String(n).padStart(2, '0');

  function wallTime(seconds, withSeconds) {
    const d = new Date(seconds * 1000);
    const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
    return withSeconds ? `${hm}:${pad(d.getSeconds())}` : hm;
  }

  /// "3h 05m", "12m 30s", "45s".
  function span(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    if (h > 0) return `${h}h ${pad(m)}m`;
    if (m > 0) return `${m}m ${pad(s % 60)}s`;
    return `${s}s`;
  }

  /// A countdown as a timer shows it: "4:59" or "1:04:59".
  function timer(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
  }

  function relative(seconds) {
    const delta = seconds - clockNow();
    if (Math.abs(delta) < 1) return 'now';
    return delta > 0 ? `in ${span(delta)}` : `${span(-delta)} ago`;
  }

  // MARK: - API

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  async function api(method, path, body) {
    const headers = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      response = await fetch(path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store',
        credentials: 'omit', redirect: 'error',
      });
    } catch (error) {
      throw new ApiError(0, 'network', `cannot reach the relay (${error.message})`);
    }
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
    if (!response.ok) {
      const message = json?.message || json?.reason || `${response.status} ${response.statusText}`;
      throw new ApiError(response.status, json?.error || json?.reason || 'error', message);
    }
    return json;
  }

  function showError(message) {
    const box = $('console-error');
    box.textContent = message;
    box.hidden = !message;
  }

  async function attempt(what, action) {
    try {
      showError('');
      return await action();
    } catch (error) {
      showError(`${what}: ${error.message}`);
      return undefined;
    }
  }

  // MARK: - Sign-in

  async function signIn(event) {
    event.preventDefault();
    const input = $('signin-key');
    const candidate = input.value.trim();
    const errorBox = $('signin-error');
    errorBox.hidden = true;
    if (!candidate) return;
    key = candidate;
    $('signin-button').disabled = true;
    try {
      me = await api('GET', '/console/me');
    } catch (error) {
      key = null;
      me = null;
      errorBox.textContent = error.status === 401
        ? `Sign-in failed: the relay did not accept this key. It is neither the admin key nor a device key (${error.message}).`
        : `Sign-in failed: ${error.message}`;
      errorBox.hidden = false;
      return;
    } finally {
      $('signin-button').disabled = false;
    }
    input.value = '';
    $('signin').hidden = true;
    $('console').hidden = false;
    $('whoami').textContent = me.principal === 'admin' ? 'admin' : `device ${me.deviceId}`;
    $('device-new').hidden = me.principal !== 'admin';
    $('send-note').textContent = me.canSendPushes
      ? 'Signed with the development provider key (the relay mints the JWT for the admin), sent to /3/device/{token}.'
      : 'Sending pushes needs the admin key: the development provider key may push to every app.';
    $('send-button').disabled = !me.canSendPushes;
    await loadAll();
    openStream();
  }

  function signOut() {
    key = null;
    me = null;
    providerToken = null;
    if (stream) stream.close();
    stream = null;
    clearTimeout(reconnectTimer);
    activities.clear();
    alarms.clear();
    pushes = [];
    devices = [];
    selectedDevice = null;
    lastSeq = null;
    $('console').hidden = true;
    $('signin').hidden = false;
    $('signin-key').focus();
  }

  // MARK: - Loading and the stream

  async function loadAll() {
    await attempt('Loading', async () => {
      const [clockJSON, deviceList, activityList, alarmList, pushList, templateList] = await Promise.all([
        api('GET', '/v1/clock'), api('GET', '/v1/devices'), api('GET', '/v1/activities'), api('GET', '/v1/alarms'),
        api('GET', '/v1/pushes?limit=200'), api('GET', '/console/templates'),
      ]);
      setClock(clockJSON);
      templates = templateList.templates || {};
      setDevices(deviceList.items);
      activities.clear();
      for (const activity of activityList.items) activities.set(activity.id, activity);
      alarms.clear();
      for (const alarm of alarmList.items) alarms.set(alarm.id, alarm);
      const seen = new Set(pushes.map((p) => p.uniqueId));
      pushes = pushList.items.filter((p) => !seen.has(p.uniqueId)).concat(pushes);
      sortPushes();
      render();
      renderLog();
    });
    await loadTimeline();
  }

  async function loadDevices() {
    await attempt('Loading devices', async () => {
      setDevices((await api('GET', '/v1/devices')).items);
      render();
    });
  }

  function setDevices(items) {
    devices = items;
    if (!devices.some((d) => d.id === selectedDevice)) selectedDevice = devices.length ? devices[0].id : null;
  }

  async function openStream() {
    if (!key) return;
    clearTimeout(reconnectTimer);
    let ticket;
    try {
      ticket = await api('POST', '/v1/stream-tickets', {});
    } catch (error) {
      setStreamStatus(false);
      reconnectTimer = setTimeout(openStream, 2000);
      return;
    }
    if (!key) return;
    const url = ticket.url + (lastSeq !== null ? `&lastEventId=${encodeURIComponent(lastSeq)}` : '');
    const source = new EventSource(url);
    stream = source;
    source.onopen = () => setStreamStatus(true);
    source.onerror = () => {
      // A ticket is single-use: EventSource's own retry would present it again, so mint a new one.
      source.close();
      if (stream !== source) return;
      stream = null;
      setStreamStatus(false);
      reconnectTimer = setTimeout(openStream, 1000);
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        if (message.lastEventId) lastSeq = message.lastEventId;
        let data;
        try { data = JSON.parse(message.data); } catch (_) { return; }
        apply(type, data);
      });
    }
  }

  function setStreamStatus(live) {
    const node = $('stream-status');
    node.textContent = live ? 'live' : 'reconnecting';
    node.classList.toggle('live', live);
  }

  let deviceReload = null;

  function apply(type, data) {
    if (type === 'timeline.reload') {
      if ((data.deviceId || data.timeline?.deviceId) === selectedDevice) loadTimeline();
      return;
    }
    if (type === 'clock') {
      setClock(data.clock);
      if (timeline && timelineExpired()) loadTimeline();
    } else if (type === 'snapshot') {
      if (data.clock) setClock(data.clock);
      activities.clear();
      for (const activity of data.activities || []) activities.set(activity.id, activity);
      alarms.clear();
      for (const alarm of data.alarms || []) alarms.set(alarm.id, alarm);
    } else if (type.startsWith('activity.') && data.activity) {
      activities.set(data.activity.id, data.activity);
      if (!devices.some((d) => d.id === data.activity.deviceId)) scheduleDeviceReload();
    } else if (type === 'alarm.updated' && data.alarm) {
      alarms.set(data.alarm.id, data.alarm);
      if (!devices.some((d) => d.id === data.alarm.deviceId)) scheduleDeviceReload();
    } else if (type === 'alarm.removed' && data.alarm) {
      alarms.delete(data.alarm.id);
    } else if (type === 'push.received' && data.push) {
      const push = data.push;
      if (!pushes.some((p) => p.uniqueId === push.uniqueId)) {
        pushes.unshift(push);
        sortPushes();
        if (pushes.length > MAX_PUSHES) pushes.length = MAX_PUSHES;
      }
      showBanner(push);
      scheduleDeviceReload();
      renderLog();
    }
    render();
  }

  function scheduleDeviceReload() {
    if (deviceReload) return;
    deviceReload = setTimeout(() => {
      deviceReload = null;
      loadDevices();
    }, 300);
  }

  function sortPushes() {
    pushes.sort((a, b) => b.receivedAt - a.receivedAt);
  }

  // MARK: - Content-state rendering (generic: keys and values)

  function appName(activity) {
    const parts = String(activity.bundleId || '').split('.');
    return parts[parts.length - 1] || activity.bundleId;
  }

  function appColor(text) {
    let hash = 0;
    for (const ch of String(text)) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
    return `hsl(${hash % 360} 70% 45%)`;
  }

  function appIcon(activity) {
    const icon = el('span', { class: 'app-icon', text: (appName(activity)[0] || '?').toUpperCase() });
    icon.style.background = appColor(activity.bundleId);
    return icon;
  }

  const label = (k) => String(k).replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ')
    .replace(/^./, (c) => c.toUpperCase());

  /// What kind of value `v` under `k` is: progress (0...1), a date (Unix seconds), or plain.
  function kind(k, v) {
    if (typeof v !== 'number') return 'plain';
    const progressName = /progress|fraction|ratio|percent|completion|complete/i.test(k);
    if (v >= 0 && v <= 1 && (!Number.isInteger(v) || progressName)) return 'progress';
    if (v > 946684800 && v < 4102444800) return 'date';
    return 'plain';
  }

  function plain(v) {
    if (v === null) return '—';
    if (typeof v === 'boolean') return v ? 'Yes' : 'No';
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  }

  function valueNode(k, v) {
    switch (kind(k, v)) {
    case 'progress': {
      const bar = el('div');
      bar.style.width = `${Math.round(v * 100)}%`;
      return el('div', {}, el('div', { class: 'kv' }, el('span', { class: 'k', text: label(k) }),
        el('span', { class: 'v', text: `${Math.round(v * 100)}%` })), el('div', { class: 'progress' }, bar));
    }
    case 'date':
      return el('div', { class: 'kv' }, el('span', { class: 'k', text: label(k) }),
        ticking(el('span', { class: 'v' }), () => `${relative(v)} · ${wallTime(v)}`));
    default:
      return el('div', { class: 'kv' }, el('span', { class: 'k', text: label(k) }), el('span', { class: 'v', text: plain(v) }));
    }
  }

  const HEADLINE = /^(status|state|title|message|phase|stage|headline)$/i;

  /// The content state's members in reading order: a headline (status, title...) first, then other
  /// text, dates, other values, and progress last, each group in the relay's key order.
  function entries(activity) {
    const cs = activity.contentState;
    if (!cs || typeof cs !== 'object' || Array.isArray(cs)) return [['value', cs]];
    const rank = ([k, v]) => {
      if (HEADLINE.test(k) && typeof v === 'string') return 0;
      if (typeof v === 'string') return 1;
      const sort = kind(k, v);
      return sort === 'date' ? 2 : sort === 'progress' ? 4 : 3;
    };
    return Object.entries(cs).map((entry, index) => [entry, index])
      .sort((a, b) => (rank(a[0]) - rank(b[0])) || (a[1] - b[1])).map(([entry]) => entry);
  }

  function title(activity) {
    const attributes = activity.attributes;
    if (attributes && typeof attributes === 'object') {
      for (const name of ['title', 'name', 'label']) if (typeof attributes[name] === 'string') return attributes[name];
      const first = Object.values(attributes).find((v) => typeof v === 'string');
      if (first) return first;
    }
    return activity.attributesType;
  }

  /// The compact presentation's two sides: a short text leading, the most glanceable value trailing.
  function compactSides(activity) {
    const list = entries(activity);
    const text = list.find(([, v]) => typeof v === 'string');
    const progress = list.find(([k, v]) => kind(k, v) === 'progress');
    const date = list.find(([k, v]) => kind(k, v) === 'date');
    const number = list.find(([k, v]) => typeof v === 'number' && kind(k, v) === 'plain');
    let trailing = () => '';
    if (progress) trailing = () => `${Math.round(progress[1] * 100)}%`;
    else if (date) trailing = () => timer(date[1] - clockNow());
    else if (number) trailing = () => plain(number[1]);
    else if (list.length > 1) trailing = () => plain(list[1][1]);
    const leading = text ? text[1] : title(activity);
    const template = templateFor(activity);
    const minimal = template?.minimal;
    const minimalValue = minimal ? fieldValue(activity, minimal) : undefined;
    return {
      leading: template?.compactLeading ? fieldText(activity, template.compactLeading)() : leading,
      trailing: template?.compactTrailing ? fieldText(activity, template.compactTrailing) : trailing,
      progress: minimal
        ? (minimal.kind === 'progress' && typeof minimalValue === 'number' ? minimalValue : null)
        : (progress ? progress[1] : null),
      minimalText: minimal && minimal.kind !== 'progress' ? fieldText(activity, minimal) : null,
    };
  }

  // MARK: - What the phone shows

  const onScreen = (a) => a.state === 'active' || a.state === 'stale' || a.state === 'ended';
  const inIsland = (a) => a.state === 'active' || a.state === 'stale';

  function deviceActivities() {
    return [...activities.values()].filter((a) => a.deviceId === selectedDevice)
      .sort((a, b) => (b.relevanceScore - a.relevanceScore) || (b.startedAt - a.startedAt));
  }

  function deviceAlarms() {
    return [...alarms.values()].filter((a) => a.deviceId === selectedDevice)
      .sort((a, b) => (a.nextAlertAt ?? Infinity) - (b.nextAlertAt ?? Infinity));
  }

  function lifetime(activity) {
    if (activity.state === 'ended') {
      return () => activity.dismissAt ? `Ended · leaves the Lock Screen in ${span(activity.dismissAt - clockNow())}` : 'Ended';
    }
    return () => `Ends in ${span(activity.systemEndAt - clockNow())} of 8h`;
  }

  // MARK: - Templates (config `console.templates`, by attributes type)

  const templateFor = (activity) => templates[activity.attributesType] || null;

  /// A template field's value: a content-state member, or `attributes.<name>`.
  function fieldValue(activity, field) {
    if (field.key.startsWith('attributes.')) return (activity.attributes || {})[field.key.slice('attributes.'.length)];
    return (activity.contentState || {})[field.key];
  }

  /// The field's value as text, now (a function, so that dates and timers tick).
  function fieldText(activity, field) {
    const v = fieldValue(activity, field);
    const suffix = field.suffix || '';
    if (v === undefined) return () => '—';
    switch (field.kind) {
    case 'progress': return () => (typeof v === 'number' ? `${Math.round(v * 100)}%` : plain(v)) + suffix;
    case 'relativeDate': return () => (typeof v === 'number' ? relative(v) : plain(v)) + suffix;
    case 'timer': return () => (typeof v === 'number' ? timer(v - clockNow()) : plain(v)) + suffix;
    case 'number': return () => (typeof v === 'number' ? v.toLocaleString() : plain(v)) + suffix;
    default: return () => plain(v) + suffix;
    }
  }

  function fieldNode(activity, field) {
    const name = field.label ?? label(field.key.replace(/^attributes\./, ''));
    const v = fieldValue(activity, field);
    const row = el('div', { class: 'kv' }, el('span', { class: 'k', text: name }),
      ticking(el('span', { class: 'v' }), fieldText(activity, field)));
    if (field.kind !== 'progress' || typeof v !== 'number') return row;
    const bar = el('div');
    bar.style.width = `${Math.round(Math.min(1, Math.max(0, v)) * 100)}%`;
    return el('div', {}, row, el('div', { class: 'progress' }, bar));
  }

  /// The body of a card or expanded presentation: the template's fields, else the generic layout.
  function bodyNodes(activity, fields) {
    if (fields) return fields.map((field) => fieldNode(activity, field));
    return entries(activity).map(([k, v]) => valueNode(k, v));
  }

  function cardTitle(activity) {
    const field = templateFor(activity)?.title;
    return field ? fieldText(activity, field)() : title(activity);
  }

  function lockScreenCard(activity) {
    const badges = [];
    if (activity.state === 'stale') badges.push(el('span', { class: 'badge stale', text: 'Outdated' }));
    if (activity.state === 'ended') badges.push(el('span', { class: 'badge ended', text: 'Ended' }));
    const template = templateFor(activity);
    return el('div', {
      class: `card activity-card ${activity.state}`, 'data-activity-id': activity.id, 'data-state': activity.state,
      'data-template': template ? activity.attributesType : null,
    },
      el('div', { class: 'card-head' }, appIcon(activity), el('span', { class: 'card-title', text: cardTitle(activity) }), badges),
      el('div', { class: 'card-body' }, bodyNodes(activity, template?.lockScreen)),
      el('div', { class: 'card-foot' }, ticking(el('span', { class: 'lifetime' }), lifetime(activity)),
        el('span', { text: appName(activity) })));
  }

  function alarmRemaining(alarm) {
    const p = alarm.presentationState;
    if (!p) return null;
    if (p.mode === 'countdown') return Math.max(0, p.fireDate - clockNow());
    if (p.mode === 'paused') return Math.max(0, p.totalCountdownDuration - p.previouslyElapsedDuration);
    return null;
  }

  function alarmTitle(alarm) {
    const presentation = alarm.presentation || {};
    const mode = alarm.state === 'paused' ? 'paused' : alarm.state === 'countdown' ? 'countdown' : 'alert';
    const part = presentation[mode] || presentation.alert || {};
    const text = part.title;
    if (typeof text === 'string') return text;
    if (text && typeof text === 'object') return text.key || text.localizationKey || JSON.stringify(text);
    return 'Alarm';
  }

  function alarmButtons(alarm) {
    const button = (op, text, cls) => el('button', {
      type: 'button', class: `round ${cls || ''}`, 'data-alarm-action': op, text,
      onclick: () => attempt(`${text} alarm`, () => api('POST', `/v1/alarms/${encodeURIComponent(alarm.id)}/${op}`)),
    });
    switch (alarm.state) {
    case 'countdown': return [button('pause', 'Pause'), button('cancel', 'Cancel', 'stop')];
    case 'paused': return [button('resume', 'Resume', 'go'), button('cancel', 'Cancel', 'stop')];
    case 'alerting': return [button('countdown', 'Snooze'), button('stop', 'Stop', 'stop')];
    default: return [button('cancel', 'Cancel', 'stop')];
    }
  }

  function alarmCard(alarm) {
    const p = alarm.presentationState;
    let main;
    if (alarm.state === 'alerting') {
      main = el('div', { class: 'countdown', text: 'Alarm' });
    } else if (p && (p.mode === 'countdown' || p.mode === 'paused')) {
      main = ticking(el('div', { class: 'countdown', 'data-alarm-id': alarm.id }), () => timer(alarmRemaining(alarm)));
    } else if (p && p.mode === 'alert' && p.time) {
      main = el('div', { class: 'countdown', text: `${pad(p.time.hour)}:${pad(p.time.minute)}` });
    } else {
      main = el('div', { class: 'countdown', text: alarm.nextAlertAt ? wallTime(alarm.nextAlertAt) : '—' });
    }
    const badge = alarm.state === 'paused' ? el('span', { class: 'badge stale', text: 'Paused' })
      : el('span', { class: 'badge', text: alarm.state });
    return el('div', { class: `card alarm-card ${alarm.state}`, 'data-alarm-card': alarm.id, 'data-state': alarm.state },
      el('div', { class: 'card-head' }, appIcon(alarm), el('span', { class: 'card-title', text: alarmTitle(alarm) }), badge),
      el('div', { class: 'alarm-row' }, main, el('div', { class: 'alarm-buttons' }, alarmButtons(alarm))));
  }

  function islandCompact(activity) {
    const sides = compactSides(activity);
    return el('div', { class: 'island compact', 'data-activity-id': activity.id },
      el('span', { class: 'lead' }, appIcon(activity), el('span', { text: sides.leading })),
      ticking(el('span', { class: 'trail' }), sides.trailing));
  }

  function islandMinimal(activity) {
    const sides = compactSides(activity);
    const node = el('div', { class: 'minimal', 'data-activity-id': activity.id });
    if (sides.progress !== null) {
      const percent = Math.round(sides.progress * 100);
      const ring = el('div', { class: 'ring' }, el('span', { text: String(percent) }));
      ring.style.background = `conic-gradient(#30d158 ${percent * 3.6}deg, #3a3a3c 0deg)`;
      node.append(ring);
    } else if (sides.minimalText) {
      node.append(ticking(el('span', { class: 'minimal-text' }), sides.minimalText));
    } else {
      node.append(appIcon(activity));
    }
    return node;
  }

  function islandExpanded(activity) {
    const sides = compactSides(activity);
    return el('div', { class: 'expanded', 'data-activity-id': activity.id },
      el('div', { class: 'expanded-top' }, el('span', { class: 'lead' }, appIcon(activity), ' ', sides.leading),
        ticking(el('span', { class: 'trail' }), sides.trailing)),
      el('div', { class: 'expanded-center', text: cardTitle(activity) }),
      el('div', { class: 'card-body' }, bodyNodes(activity, templateFor(activity)?.expanded)));
  }

  function alarmIsland(alarm) {
    return el('div', { class: 'island compact alarm-island', 'data-alarm-island': alarm.id },
      el('span', { class: 'lead' }, appIcon(alarm), el('span', { text: alarm.state === 'alerting' ? 'Alarm' : alarmTitle(alarm) })),
      ticking(el('span', { class: 'trail' }), () => alarm.state === 'alerting' ? '' : timer(alarmRemaining(alarm) ?? 0)));
  }

  function showBanner(push) {
    const alert = push?.payload?.aps?.alert;
    if (!alert || (push.outcome !== 'applied' && push.outcome !== 'started')) return;
    const text = (v) => typeof v === 'string' ? v : v && typeof v === 'object' ? (v['loc-key'] || JSON.stringify(v)) : '';
    const activity = activities.get(push.activityId);
    if (activity && activity.deviceId !== selectedDevice) return;
    banners.push({
      until: Date.now() / 1000 + BANNER_SECONDS, title: typeof alert === 'string' ? alert : text(alert.title),
      body: typeof alert === 'string' ? '' : text(alert.body), bundleId: push.bundleId || '',
    });
  }

  // MARK: - Rendering

  function render() {
    if (!me) return;
    tickers = [];
    renderDevices();
    const list = deviceActivities();
    const shownAlarms = deviceAlarms();
    const activeAlarms = shownAlarms.filter((a) => a.state !== 'scheduled');

    const lock = $('lockscreen');
    lock.replaceChildren(...activeAlarms.map(alarmCard), ...list.filter(onScreen).map(lockScreenCard));

    const island = list.filter(inIsland);
    const slot = $('island');
    const pill = island.length ? islandCompact(island[0]) : activeAlarms.length ? alarmIsland(activeAlarms[0]) : null;
    const extra = island.length > 1 ? islandMinimal(island[1]) : null;
    slot.replaceWith(el('div', { id: 'island', class: 'island-pair' }, pill || el('div', { class: 'island' }), extra));

    const panel = $('island-presentations');
    if (!island.length) {
      panel.replaceChildren(el('p', { class: 'empty', text: 'No Live Activity in the Dynamic Island.' }));
    } else {
      panel.replaceChildren(...island.map((activity) => el('div', { class: 'presentation-set' },
        el('div', { class: 'presentation-small' },
          el('div', {}, el('div', { class: 'presentation-label', text: 'Compact (leading · trailing)' }),
            islandCompact(activity)),
          el('div', {}, el('div', { class: 'presentation-label', text: 'Minimal' }), islandMinimal(activity))),
        el('div', {}, el('div', { class: 'presentation-label', text: 'Expanded' }), islandExpanded(activity)))));
    }

    renderActivityTable(list);
    renderAlarmList(shownAlarms);
    renderSendOptions(list);
    tick();
  }

  function renderDevices() {
    const tabs = $('device-tabs');
    if (!devices.length) {
      tabs.replaceChildren(el('span', { class: 'empty', text: 'No devices yet: create one (+ Device or POST /v1/devices).' }));
      return;
    }
    tabs.replaceChildren(...devices.map((d) => el('button', {
      type: 'button', class: d.id === selectedDevice ? 'selected' : '', 'data-device-id': d.id, text: d.id,
      onclick: () => { selectedDevice = d.id; contentEdited = false; render(); loadTimeline(); },
    })));
  }

  function budgetMeter(bucket, what) {
    if (!bucket || !bucket.capacity) return el('span', { class: 'empty', text: '—' });
    const fill = el('div');
    const remaining = () => Math.min(bucket.capacity,
      bucket.tokens + Math.max(0, clockNow() - bucket.updatedAt) * bucket.refillPerSecond);
    const meter = el('span', { class: 'meter', title: what }, fill);
    const text = ticking(el('span', { class: 'mono' }), () => {
      const left = remaining();
      fill.style.width = `${(left / bucket.capacity) * 100}%`;
      const refill = left < bucket.capacity && bucket.refillPerSecond > 0
        ? ` · +1 in ${span((1 - (left % 1)) / bucket.refillPerSecond)}` : '';
      return `${Math.floor(left)}/${bucket.capacity}${refill}`;
    });
    return el('span', { class: 'budget' }, meter, text);
  }

  function renderActivityTable(list) {
    const device = devices.find((d) => d.id === selectedDevice);
    const rows = list.map((a) => el('tr', { 'data-activity-id': a.id },
      el('td', {}, el('div', { text: title(a) }), el('div', { class: 'mono empty', text: a.id })),
      el('td', { text: a.state }),
      el('td', { text: String(a.relevanceScore) }),
      el('td', {}, budgetMeter(a.updateBudget, 'priority-10 update budget')),
      el('td', { class: 'mono', text: a.pushToken ? `${a.pushToken.slice(0, 12)}…` : a.channelId ? `channel ${a.channelId}` : '—' })));
    const starts = Object.entries(device?.pushToStartBudgets || {}).map(([bundleId, bucket]) =>
      el('tr', {}, el('td', { text: `push-to-start · ${bundleId}` }), el('td'), el('td'), el('td', {}, budgetMeter(bucket, 'push-to-start budget')), el('td')));
    const table = el('table', {},
      el('thead', {}, el('tr', {}, ['Activity', 'State', 'Relevance', 'Priority-10 budget', 'Push token'].map((h) => el('th', { text: h })))),
      el('tbody', {}, rows, starts));
    $('activity-table').replaceChildren(rows.length || starts.length ? table : el('p', { class: 'empty', text: 'No activities on this device.' }));
  }

  function renderAlarmList(list) {
    $('alarm-list').replaceChildren(...(list.length ? list.map((alarm) => el('div', { class: 'alarm-line' },
      el('strong', { text: alarmTitle(alarm) }), ` · ${alarm.state}`,
      alarm.presentationState ? ` · ${alarm.presentationState.mode}` : '',
      alarm.nextAlertAt ? ticking(el('span'), () => ` · alerts ${relative(alarm.nextAlertAt)}`) : '',
      el('div', { class: 'mono empty', text: alarm.id }))) : [el('p', { class: 'empty', text: 'No alarms on this device.' })]));
  }

  function renderSendOptions(list) {
    const select = $('send-activity');
    const current = select.value;
    const targets = list.filter((a) => a.pushToken && inIsland(a));
    select.replaceChildren(...targets.map((a) => el('option', { value: a.id, text: `${title(a)} · ${a.id.slice(0, 8)}` })));
    if (targets.some((a) => a.id === current)) select.value = current;
    if (!contentEdited) fillContent();
  }

  function fillContent() {
    const activity = activities.get($('send-activity').value);
    $('send-content').value = activity ? JSON.stringify(activity.contentState, null, 1) : '';
  }

  function tick() {
    const now = clockNow();
    if (clock) {
      $('clock-now').textContent = `${new Date(now * 1000).toLocaleDateString()} ${wallTime(now, true)}`;
      $('lock-time').textContent = wallTime(now);
      $('lock-date').textContent = new Date(now * 1000).toLocaleDateString(undefined,
        { weekday: 'long', month: 'long', day: 'numeric' });
    }
    for (const { node, fn } of tickers) {
      const text = fn();
      if (node.textContent !== text) node.textContent = text;
    }
    tickSmartStack();
    const real = Date.now() / 1000;
    const live = banners.filter((b) => b.until > real);
    if (live.length !== banners.length || $('banner-slot').childElementCount !== live.length) {
      banners = live;
      $('banner-slot').replaceChildren(...banners.map((b) => el('div', { class: 'banner' },
        appIcon({ bundleId: b.bundleId }),
        el('div', {}, el('div', { class: 'b-title', text: b.title }), el('div', { class: 'b-body', text: b.body })))));
    }
  }

  // MARK: - Smart Stack (GET /v1/devices/{id}/timeline)

  async function loadTimeline() {
    const device = selectedDevice;
    if (!key || !device) {
      timeline = null;
      renderSmartStack();
      return;
    }
    const family = $('widget-family').value;
    try {
      const answer = await api('GET', `/v1/devices/${encodeURIComponent(device)}/timeline?family=${encodeURIComponent(family)}`);
      if (device === selectedDevice) timeline = answer;
    } catch (error) {
      timeline = null;
      showError(`Loading the timeline: ${error.message}`);
    }
    renderSmartStack();
  }

  /// The entry a widget shows now: the last one whose date has come.
  function currentEntryIndex() {
    let index = 0;
    timeline.entries.forEach((entry, i) => { if (entry.date <= clockNow() + 0.0005) index = i; });
    return index;
  }

  /// Whether the reload policy says to ask again: past the `after` date, or past the last entry.
  function timelineExpired() {
    const policy = timeline.policy || {};
    const last = timeline.entries[timeline.entries.length - 1];
    if (policy.after !== undefined) return clockNow() >= policy.after;
    if (policy.atEnd) return !last || clockNow() > last.date;
    return false;
  }

  function policyText(policy) {
    if (policy.after !== undefined) return `reload after ${wallTime(policy.after)}`;
    if (policy.atEnd) return 'reload at the end';
    return 'never reload';
  }

  function widgetItem(item) {
    const details = Object.entries(item)
      .filter(([k, v]) => !['kind', 'id', 'url', 'state', 'relevance', 'remaining'].includes(k) && typeof v !== 'object')
      .slice(0, 2).map(([k, v]) => `${label(k)}: ${plain(v)}`);
    return el('div', { class: 'widget-item', 'data-item-id': item.id },
      el('div', { class: 'kv' }, el('span', { class: 'k', text: `${item.kind} · ${item.state}` }),
        el('span', { class: 'v', text: `relevance ${Math.round(item.relevance * 10) / 10}` })),
      details.length ? el('div', { class: 'widget-details', text: details.join(' · ') }) : null,
      el('a', { class: 'deep-link', href: item.url, text: item.url }));
  }

  let shownEntry = null;

  function renderSmartStack() {
    const node = $('smartstack');
    if (!timeline || !timeline.entries.length) {
      shownEntry = null;
      node.replaceChildren(el('p', { class: 'empty', text: 'No timeline for this device.' }));
      return;
    }
    const index = currentEntryIndex();
    const entry = timeline.entries[index];
    shownEntry = index;
    const items = [...entry.items].sort((a, b) => b.relevance - a.relevance);
    const next = timeline.entries.slice(index + 1, index + 4);
    node.replaceChildren(
      el('div', { class: 'widget', 'data-entry-date': entry.date, 'data-family': timeline.family },
        el('div', { class: 'widget-head', text: `Entry ${wallTime(entry.date, true)} · relevance ${Math.round(entry.relevance * 10) / 10}` }),
        items.length ? items.map(widgetItem) : el('p', { class: 'empty', text: 'Nothing to show.' })),
      el('div', { class: 'widget-next', 'data-next': JSON.stringify(next.map((e) => e.date)) },
        el('span', { text: next.length ? `Next: ${next.map((e) => wallTime(e.date, true)).join(', ')}` : 'No later entry' }),
        el('span', { class: 'widget-policy', 'data-policy': JSON.stringify(timeline.policy), text: policyText(timeline.policy || {}) })));
  }

  /// At each tick: a newer entry's date has come (show it), or the policy says to reload.
  function tickSmartStack() {
    if (!timeline) return;
    if (timelineExpired()) {
      if (!tickSmartStack.loading) {
        tickSmartStack.loading = true;
        loadTimeline().finally(() => { tickSmartStack.loading = false; });
      }
    } else if (timeline.entries.length && currentEntryIndex() !== shownEntry) {
      renderSmartStack();
    }
  }

  // MARK: - Delivery log

  function filters() {
    const value = (id) => $(id).value.trim().toLowerCase();
    return {
      token: value('filter-token'), apnsId: value('filter-apns-id'), uniqueId: value('filter-unique-id'),
      bundleId: value('filter-bundle'), outcome: $('filter-outcome').value,
    };
  }

  function matches(push, f) {
    const has = (field, wanted) => !wanted || String(field || '').toLowerCase().includes(wanted);
    return has(push.token || push.channelId, f.token) && has(push.apnsId, f.apnsId) && has(push.uniqueId, f.uniqueId)
      && has(push.bundleId, f.bundleId) && (!f.outcome || push.outcome === f.outcome);
  }

  function redactedHeaders(headers) {
    const copy = {};
    for (const [name, value] of Object.entries(headers || {})) {
      copy[name] = name.toLowerCase() === 'authorization' && !/redacted/i.test(String(value)) ? 'bearer <redacted>' : value;
    }
    return copy;
  }

  function renderLog() {
    const select = $('filter-outcome');
    const known = new Set([...OUTCOMES, ...pushes.map((p) => p.outcome)]);
    if (select.options.length - 1 !== known.size) {
      const chosen = select.value;
      select.replaceChildren(el('option', { value: '', text: 'Any outcome' }),
        ...[...known].map((o) => el('option', { value: o, text: o })));
      select.value = chosen;
    }
    const f = filters();
    const rows = [];
    for (const push of pushes) {
      if (!matches(push, f)) continue;
      const open = expandedPushes.has(push.uniqueId);
      rows.push(el('tr', {
        class: 'row', 'data-unique-id': push.uniqueId, 'data-outcome': push.outcome,
        onclick: () => { if (open) expandedPushes.delete(push.uniqueId); else expandedPushes.add(push.uniqueId); renderLog(); },
      },
      el('td', { class: 'mono', text: wallTime(push.receivedAt, true) }),
      el('td', {}, el('span', { class: `outcome ${push.outcome}`, text: push.outcome })),
      el('td', { text: push.reason ? `${push.status} ${push.reason}` : String(push.status) }),
      el('td', { class: 'mono', text: push.apnsId }),
      el('td', { class: 'mono', text: (push.token || push.channelId || '—').slice(0, 16) }),
      el('td', { text: push.bundleId || '—' }),
      el('td', { class: 'hint', text: push.hint || '' })));
      if (open) {
        rows.push(el('tr', { class: 'details' }, el('td', { colspan: 7 }, el('div', { class: 'detail-grid' },
          el('div', {}, el('div', { class: 'presentation-label', text: 'Headers' }), el('pre', { text: JSON.stringify(redactedHeaders(push.headers), null, 1) })),
          el('div', {}, el('div', { class: 'presentation-label', text: 'Payload' }), el('pre', { text: JSON.stringify(push.payload, null, 1) })),
          el('div', {}, el('div', { class: 'presentation-label', text: 'APNs answer and device' }), el('pre', {
            text: JSON.stringify({ status: push.status, reason: push.reason, response: push.response, apnsId: push.apnsId,
              uniqueId: push.uniqueId, outcome: push.outcome, hint: push.hint, activityId: push.activityId }, null, 1),
          }))))));
      }
    }
    $('log-rows').replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { colspan: 7, class: 'empty', text: 'No pushes match.' }))]));
  }

  // MARK: - Controls

  async function advance(seconds) {
    await attempt('Moving the clock', async () => setClock(await api('POST', '/v1/clock', { advanceBy: seconds })));
    render();
  }

  async function setRate() {
    const rate = Number($('clock-rate').value);
    if (!Number.isFinite(rate) || rate < 0) { showError('The rate must be a number of at least 0.'); return; }
    await attempt('Setting the clock rate', async () => setClock(await api('POST', '/v1/clock', { rate })));
    render();
  }

  async function newDevice() {
    await attempt('Creating a device', async () => {
      const created = await api('POST', '/v1/devices', {});
      selectedDevice = created.deviceId;
      await loadDevices();
      showError('');
      $('send-result').textContent = `Created ${created.deviceId}; its device key (shown once): ${created.deviceKey}`;
    });
  }

  async function mintProviderToken() {
    // APNs refuses a new token on a connection within 20 minutes of the last; one lasts an hour.
    const real = Date.now() / 1000;
    if (providerToken && real - providerToken.at < 50 * 60) return providerToken.token;
    const minted = await api('POST', '/console/provider-token');
    providerToken = { token: minted.token, at: real };
    return minted.token;
  }

  async function sendPush(event) {
    event.preventDefault();
    const out = $('send-result');
    const activity = activities.get($('send-activity').value);
    if (!activity || !activity.pushToken) { out.textContent = 'Choose a running activity that has a push token.'; return; }
    let contentState;
    try { contentState = JSON.parse($('send-content').value); } catch (error) {
      out.textContent = `content-state is not JSON: ${error.message}`;
      return;
    }
    // Rounded up: never older than an update applied earlier in the same second.
    const aps = { timestamp: Math.ceil(clockNow()), event: $('send-event').value, 'content-state': contentState };
    const staleMinutes = $('send-stale').value;
    if (staleMinutes !== '') aps['stale-date'] = Math.floor(clockNow() + Number(staleMinutes) * 60);
    const alertTitle = $('send-alert-title').value.trim();
    const alertBody = $('send-alert-body').value.trim();
    if (alertTitle || alertBody) aps.alert = { title: alertTitle, body: alertBody };
    out.textContent = 'Sending…';
    try {
      const jwt = await mintProviderToken();
      const response = await fetch(`/3/device/${encodeURIComponent(activity.pushToken)}`, {
        method: 'POST', cache: 'no-store', credentials: 'omit', redirect: 'error',
        headers: {
          authorization: `bearer ${jwt}`, 'apns-push-type': 'liveactivity', 'apns-priority': $('send-priority').value,
          'apns-topic': `${activity.bundleId}.push-type.liveactivity`, 'content-type': 'application/json',
        },
        body: JSON.stringify({ aps }),
      });
      const text = await response.text();
      out.textContent = `${response.status} apns-id ${response.headers.get('apns-id') || '—'}`
        + (response.headers.get('apns-unique-id') ? ` apns-unique-id ${response.headers.get('apns-unique-id')}` : '')
        + (text ? ` ${text}` : '');
      if (response.status === 403 || response.status === 429) providerToken = null;
      contentEdited = false;
    } catch (error) {
      out.textContent = `Not sent: ${error.message}`;
    }
  }

  // MARK: - Start

  document.addEventListener('DOMContentLoaded', () => {
    $('signin-form').addEventListener('submit', signIn);
    $('signout').addEventListener('click', signOut);
    for (const button of document.querySelectorAll('[data-advance]')) {
      button.addEventListener('click', () => advance(Number(button.dataset.advance)));
    }
    $('clock-rate-set').addEventListener('click', setRate);
    $('device-new').addEventListener('click', newDevice);
    $('send-form').addEventListener('submit', sendPush);
    $('widget-family').addEventListener('change', loadTimeline);
    $('send-activity').addEventListener('change', () => { contentEdited = false; fillContent(); });
    $('send-content').addEventListener('input', () => { contentEdited = true; });
    for (const id of ['filter-token', 'filter-apns-id', 'filter-unique-id', 'filter-bundle', 'filter-outcome']) {
      $(id).addEventListener('input', renderLog);
    }
    setInterval(() => { if (me) tick(); }, 250);
    $('signin-key').focus();
  });
})();
