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
      const r = await post("/api/pair", {
        secret,
        name,
        publicKey: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y },
        signature: await signText(keys.privateKey, `plandeck-pair-v1\n${secret}`),
      });
      if (!r.ok) {
        say(`Not paired: ${r.body && r.body.error ? r.body.error.message : "refused"}`, "refused");
        return;
      }
      device = { id: r.body.device.id, name: r.body.device.name, privateKey: keys.privateKey, publicKey: keys.publicKey };
      await saveDevice(device);
      $("pairing").hidden = true;
      say(`Paired as "${device.name}".`);
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
  $("status").textContent = `${device.name} · ${r.body.machine} · ${r.body.pending.length} waiting`;
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
    b.onclick = () => showPlan(p.id);
    li.append(b);
    ul.append(li);
  }
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
    say(`refused: ${r.body && r.body.error ? r.body.error.message : "?"}`, "refused");
    return;
  }
  shown = { id: r.body.id, planHash: r.body.planHash };
  $("queue-view").hidden = true;
  $("plan-view").hidden = false;
  $("plan-where").textContent = `${r.body.machine} · ${r.body.agent} · ${r.body.cwd}`;
  // Rendered and sanitized by Plandeck's own renderer (the window's); no script runs under the CSP.
  $("plan").innerHTML = r.body.html;
  $("feedback").value = "";
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
    });
  } catch (err) {
    say("unknown: Plandeck could not be reached; not known whether the decision went", "unknown");
    for (const b of document.querySelectorAll(".actions button")) b.disabled = false;
    return;
  }
  for (const b of document.querySelectorAll(".actions button")) b.disabled = false;
  if (!r.ok) {
    say(`Refused: ${r.body && r.body.error ? r.body.error.message : "?"}`, "refused");
    return;
  }
  say(r.body.message || r.body.status || "sent", "");
  shown = null;
  await showQueue();
}

async function main() {
  if (!window.isSecureContext || !crypto.subtle) {
    $("status").textContent = "This page needs HTTPS.";
    return;
  }
  const m = /^#pair=([A-Za-z0-9_-]{16,128})$/.exec(location.hash);
  // The secret leaves the address bar at once (and never went to the server in a request line).
  if (location.hash) history.replaceState(null, "", location.pathname);
  device = await loadDevice();
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
