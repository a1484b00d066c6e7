// The phone page of Plandeck. The device key is made here by WebCrypto, not extractable, and kept
// in IndexedDB; every call to the server is signed by it (no cookie is an authorisation). What
// the server did not confirm is "unknown", never "approved".
"use strict";

const $ = (id) => document.getElementById(id);
const enc = new TextEncoder();

function b64url(bytes) {
  let s = "";
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function nonce() {
  return b64url(crypto.getRandomValues(new Uint8Array(18)));
}

async function sha256hex(text) {
  const d = await crypto.subtle.digest("SHA-256", enc.encode(text));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, "0")).join("");
}

// IndexedDB: one store, one record "device" = {id, name, privateKey, publicKey}.
function db() {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open("plandeck-phone", 1);
    r.onupgradeneeded = () => r.result.createObjectStore("keys");
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}
async function loadDevice() {
  const d = await db();
  return new Promise((resolve, reject) => {
    const r = d.transaction("keys").objectStore("keys").get("device");
    r.onsuccess = () => resolve(r.result || null);
    r.onerror = () => reject(r.error);
  });
}
async function saveDevice(device) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const t = d.transaction("keys", "readwrite");
    t.objectStore("keys").put(device, "device");
    t.oncomplete = () => resolve();
    t.onerror = () => reject(t.error);
  });
}

async function signText(key, text) {
  const sig = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, enc.encode(text));
  return b64url(sig);
}

function expiry() {
  return Math.floor(Date.now() / 1000) + 120;
}

// POST a JSON call. Resolves {ok, body}; a server not reached rejects.
async function post(path, body) {
  const r = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  let parsed = null;
  try {
    parsed = await r.json();
  } catch (_) {
    parsed = null;
  }
  return { ok: r.ok, body: parsed };
}

let device = null;
let shown = null; // the request on screen: {id, planHash}

function say(text, cls) {
  const el = $("result");
  el.textContent = text;
  el.className = cls || "";
}

async function signedRead(what, requestId) {
  const n = nonce();
  const e = expiry();
  const msg = `plandeck-read-v1\n${what}\n${requestId}\n${n}\n${e}`;
  return {
    requestId,
    device: device.id,
    nonce: n,
    expires: e,
    signature: await signText(device.privateKey, msg),
  };
}

// A passkey (WebAuthn, the person verified by fingerprint, face or PIN) where this phone offers
// one: made at pairing, asked for each decision. Where none is offered, the WebCrypto key alone.
async function passkeyOffered() {
  try {
    return (
      !!window.PublicKeyCredential &&
      (await PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable())
    );
  } catch (_) {
    return false;
  }
}

async function makePasskey(secret, name) {
  const challenge = await crypto.subtle.digest("SHA-256", enc.encode(`plandeck-pair-v1\n${secret}`));
  const cred = await navigator.credentials.create({
    publicKey: {
      rp: { id: location.hostname, name: "Plandeck" },
      user: { id: crypto.getRandomValues(new Uint8Array(16)), name, displayName: name },
      challenge,
      pubKeyCredParams: [{ type: "public-key", alg: -7 }],
      authenticatorSelection: { userVerification: "required", residentKey: "preferred" },
      attestation: "none",
      timeout: 120000,
    },
  });
  return {
    credentialId: b64url(cred.rawId),
    clientDataJson: b64url(cred.response.clientDataJSON),
    attestationObject: b64url(cred.response.attestationObject),
  };
}

// The passkey's assertion of the canonical decision `msg` (its challenge: SHA-256 of it).
async function passkeyAssertion(credentialId, msg, userVerification) {
  const challenge = await crypto.subtle.digest("SHA-256", enc.encode(msg));
  const a = await navigator.credentials.get({
    publicKey: {
      challenge,
      rpId: location.hostname,
      allowCredentials: [{ type: "public-key", id: b64urlToBytes(credentialId) }],
      userVerification: userVerification || "required",
      timeout: 120000,
    },
  });
  return {
    credentialId: b64url(a.rawId),
    clientDataJson: b64url(a.response.clientDataJSON),
    authenticatorData: b64url(a.response.authenticatorData),
    signature: b64url(a.response.signature),
  };
}

async function pair(secret) {
  $("pairing").hidden = false;
  $("status").textContent = "not paired";
  $("pair-button").onclick = async () => {
    $("pair-button").disabled = true;
    try {
      const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
        "sign",
        "verify",
      ]);
      const jwk = await crypto.subtle.exportKey("jwk", keys.publicKey);
      const name = $("pair-name").value;
      let passkey = null;
      if (await passkeyOffered()) {
        try {
          passkey = await makePasskey(secret, name);
        } catch (e) {
          passkey = null; // declined or failed: this phone's WebCrypto key alone
        }
      }
      const r = await post("/api/pair", {
        secret,
        name,
        publicKey: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y },
        signature: await signText(keys.privateKey, `plandeck-pair-v1\n${secret}`),
        passkey,
      });
      if (!r.ok) {
        say(`Not paired: ${r.body && r.body.error ? r.body.error.message : "refused"}`, "refused");
        return;
      }
      device = {
        id: r.body.device.id,
        name: r.body.device.name,
        privateKey: keys.privateKey,
        publicKey: keys.publicKey,
        passkey: passkey ? passkey.credentialId : null,
      };
      await saveDevice(device);
      $("pairing").hidden = true;
      say(`Paired as "${device.name}"${passkey ? " with a passkey" : ""}.`);
      await showQueue();
    } catch (e) {
      say("unknown: Plandeck could not be reached; pair again with a new link", "unknown");
    } finally {
      $("pair-button").disabled = false;
    }
  };
}

async function showQueue() {
  $("plan-view").hidden = true;
  $("queue-view").hidden = false;
  let r;
  try {
    r = await post("/api/pending", await signedRead("pending", ""));
  } catch (e) {
    $("status").textContent = "unknown: Plandeck cannot be reached";
    $("status").className = "unknown";
    return;
  }
  if (!r.ok) {
    $("status").textContent = `refused: ${r.body && r.body.error ? r.body.error.message : "?"}`;
    $("status").className = "refused";
    return;
  }
  $("status").className = "";
  const others = r.body.inTheWindow
    ? ` · ${r.body.inTheWindow} tool request(s) to decide in the window`
    : "";
  $("status").textContent = `${device.name} · ${r.body.machine} · ${r.body.pending.length} waiting${others}`;
  // The other machines: each named with how it is; one not connected is "unknown".
  const ms = $("machines");
  ms.replaceChildren();
  for (const m of r.body.machines || []) {
    const li = el("li", m.state === "connected" ? "machine" : "machine unknown");
    li.dataset.name = m.name;
    li.textContent =
      m.state === "connected"
        ? `${m.name}: connected`
        : `${m.name}: unknown (${m.state === "connecting" ? "connecting" : `unreachable since ${m.since}`}${m.problem ? `: ${m.problem}` : ""})`;
    ms.append(li);
  }
  const ul = $("queue");
  ul.replaceChildren();
  for (const p of r.body.pending) {
    const li = document.createElement("li");
    li.className = "card";
    li.dataset.id = p.id;
    const b = document.createElement("button");
    const title = document.createElement("div");
    title.textContent = `${p.project}`;
    const where = document.createElement("div");
    where.className = "where";
    where.textContent = `${p.machine} · ${p.agent} · waiting since ${p.waitingSince}`;
    b.append(title, where);
    if (p.known === false) {
      // Its machine is not connected: this is what it last said; whether it still waits is
      // not known.
      li.classList.add("unknown");
      b.append(el("div", "unknown", `unknown: ${p.machine} is not connected`));
    }
    b.onclick = () => showPlan(p.id);
    li.append(b);
    ul.append(li);
  }
  // The queue is on screen (benches/src/bin/bench_phone.rs times the first of these).
  performance.mark("plandeck-queue-shown");
}

async function showPlan(id) {
  say("");
  let r;
  try {
    r = await post("/api/plan", await signedRead("plan", id));
  } catch (e) {
    say("unknown: Plandeck cannot be reached", "unknown");
    return;
  }
  if (!r.ok) {
    const error = r.body && r.body.error ? r.body.error : { kind: "", message: "?" };
    say(`${error.kind === "unreachable" ? "unknown" : "refused"}: ${error.message}`, error.kind === "unreachable" ? "unknown" : "refused");
    return;
  }
  shown = { id: r.body.id, planHash: r.body.planHash };
  $("queue-view").hidden = true;
  $("plan-view").hidden = false;
  $("plan-where").textContent = `${r.body.machine} · ${r.body.agent} · ${r.body.cwd}`;
  // Rendered and sanitized by Plandeck's own renderer (the window's); no script runs under the CSP.
  $("plan").innerHTML = r.body.html;
  showDiff(r.body.diff);
  showComments(r.body.comments);
  $("feedback").value = "";
}

// An element with `text` as its text (never parsed as HTML).
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The plan's diff against the last approved version, as lines of text.
function showDiff(diff) {
  const box = $("diff");
  box.replaceChildren();
  if (!diff || diff.unknown) {
    $("diff-summary").textContent = `Changes: unknown${diff && diff.unknown ? ` (${diff.unknown})` : ""}`;
    $("diff-box").open = false;
    return;
  }
  $("diff-summary").textContent = diff.approvedBefore
    ? `Changes since ${diff.from}: +${diff.added} −${diff.removed}`
    : `Nothing approved yet: all ${diff.added} lines are new`;
  $("diff-box").open = diff.approvedBefore && diff.added + diff.removed > 0;
  for (const h of diff.hunks) {
    box.append(el("div", "hunk", h.header));
    const pre = el("pre", "diff-lines");
    for (const l of h.lines) {
      const sign = l.kind === "insert" ? "+" : l.kind === "delete" ? "-" : " ";
      pre.append(el("div", `line ${l.kind}`, `${sign} ${l.text}`));
    }
    box.append(pre);
  }
  if (diff.linesLeftOut) box.append(el("p", "where", `${diff.linesLeftOut} more lines not shown`));
}

// The plan's comments, each with the text it is on (its anchor) and its line.
function showComments(comments) {
  const ul = $("comments");
  ul.replaceChildren();
  if (!Array.isArray(comments)) {
    $("comments-title").textContent = `Comments: unknown${comments && comments.unknown ? ` (${comments.unknown})` : ""}`;
    return;
  }
  const open = comments.filter((c) => c.status === "open").length;
  $("comments-title").textContent = comments.length
    ? `Comments (${open} open, sent with your decision)`
    : "No comments";
  for (const c of comments) {
    const li = el("li", `comment ${c.status}`);
    li.dataset.id = c.id;
    const where = c.line ? `line ${c.line}` : "not in this version";
    li.append(
      el("div", "where", `${where} · ${c.status} · ${c.author}`),
      el("blockquote", "quote", c.quote),
      el("div", "text", c.text),
    );
    ul.append(li);
  }
}

async function decide(decision) {
  if (!shown) return;
  const feedback = decision === "approve" ? "" : $("feedback").value;
  if (decision !== "approve" && feedback.trim() === "") {
    say(decision === "reject" ? "Write the feedback first." : "Write the note first.", "refused");
    return;
  }
  for (const b of document.querySelectorAll(".actions button")) b.disabled = true;
  const n = nonce();
  const e = expiry();
  const msg = `plandeck-decision-v1\n${shown.id}\n${shown.planHash}\n${decision}\n${await sha256hex(feedback)}\n${n}\n${e}`;
  let passkey = null;
  if (device.passkey) {
    try {
      passkey = await passkeyAssertion(device.passkey, msg);
    } catch (err) {
      say(`Not sent: the passkey was not given (${err && err.name ? err.name : err})`, "refused");
      for (const b of document.querySelectorAll(".actions button")) b.disabled = false;
      return;
    }
  }
  let r;
  try {
    r = await post("/api/decide", {
      requestId: shown.id,
      planHash: shown.planHash,
      decision,
      feedback,
      device: device.id,
      nonce: n,
      expires: e,
      signature: await signText(device.privateKey, msg),
      passkey,
    });
  } catch (err) {
    say("unknown: Plandeck could not be reached; not known whether the decision went", "unknown");
    for (const b of document.querySelectorAll(".actions button")) b.disabled = false;
    return;
  }
  for (const b of document.querySelectorAll(".actions button")) b.disabled = false;
  if (!r.ok) {
    const error = r.body && r.body.error ? r.body.error : { kind: "", message: "?" };
    if (error.kind === "unreachable") {
      say(`unknown: ${error.message}`, "unknown");
    } else {
      say(`Refused: ${error.message}`, "refused");
    }
    return;
  }
  say(r.body.message || r.body.status || "sent", "");
  shown = null;
  await showQueue();
}

// The service worker: installable to the home screen, and it shows a push's notification. It
// caches nothing (no fetch handler): what the server does not answer stays "unknown".
async function registerWorker() {
  if (!("serviceWorker" in navigator)) return null;
  try {
    return await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch (e) {
    return null;
  }
}

function b64urlToBytes(text) {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

// Sends a push subscription ({endpoint, keys: {p256dh, auth}}, as PushSubscription.toJSON()
// gives it) to Plandeck, signed by the device key like a decision. Resolves {ok, body}.
async function sendSubscription(sub) {
  const endpoint = sub.endpoint || "";
  const p256dh = (sub.keys && sub.keys.p256dh) || "";
  const auth = (sub.keys && sub.keys.auth) || "";
  const n = nonce();
  const e = expiry();
  const msg = `plandeck-push-v1\n${await sha256hex(endpoint)}\n${p256dh}\n${auth}\n${n}\n${e}`;
  return post("/api/push/subscribe", {
    endpoint,
    p256dh,
    auth,
    device: device.id,
    nonce: n,
    expires: e,
    signature: await signText(device.privateKey, msg),
  });
}

// Asks the phone for notifications (a tap: browsers ask only then), subscribes with Plandeck's
// push key and sends the subscription. Each message says only "Plan waiting: project · agent ·
// machine"; the plan is read here, signed, once opened.
async function enablePush() {
  const el = $("push-status");
  try {
    const reg = await navigator.serviceWorker.ready;
    if ((await Notification.requestPermission()) !== "granted") {
      el.textContent = "Notifications are not allowed on this phone.";
      return;
    }
    const r = await fetch("/api/push/key", { credentials: "omit", cache: "no-store" });
    const { key } = await r.json();
    const sub = await reg.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: b64urlToBytes(key),
    });
    const sent = await sendSubscription(sub.toJSON());
    el.textContent = sent.ok
      ? "This phone is told when a plan waits."
      : `Refused: ${sent.body && sent.body.error ? sent.body.error.message : "?"}`;
  } catch (e) {
    el.textContent = `unknown: notifications were not set up (${e && e.message ? e.message : e})`;
  }
}

async function main() {
  if (!window.isSecureContext || !crypto.subtle) {
    $("status").textContent = "This page needs HTTPS.";
    return;
  }
  const m = /^#pair=([A-Za-z0-9_-]{16,128})$/.exec(location.hash);
  // The secret leaves the address bar at once (and never went to the server in a request line).
  if (location.hash) history.replaceState(null, "", location.pathname);
  // The worker registers beside the first listing, not before it: the queue is not kept waiting.
  registerWorker();
  device = await loadDevice();
  if ("PushManager" in window && "Notification" in window) {
    $("push-button").hidden = false;
    $("push-button").onclick = () => enablePush();
  }
  $("refresh").onclick = () => showQueue();
  $("back").onclick = () => showQueue();
  $("approve").onclick = () => decide("approve");
  $("approve-note").onclick = () => decide("approveWithNote");
  $("reject").onclick = () => decide("reject");
  if (m) {
    await pair(m[1]);
    return;
  }
  if (!device) {
    $("status").textContent = "not paired: open the pairing link from `plandeck phone pair`";
    return;
  }
  await showQueue();
}

main();
