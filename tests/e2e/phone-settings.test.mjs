// Settings → Phone in the real window: the page turned on at the address typed (confirmed in a
// native dialog naming it), served by the per-user server; a pairing link drawn as a QR code with
// its countdown; a phone pairing through that link (a P-256 key made with WebCrypto, as the page
// makes it) appears in the list; Revoke, once confirmed, takes it out; Turn off stops the page.
// And on this machine's Tailscale, chosen in the window (a LocalAPI stand-in on a unix socket in
// tailscaled's shapes): served at the address and name it gives, each caller checked by whois.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { request } from "node:https";
import { createServer } from "node:net";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { webcrypto } from "node:crypto";
import { clickNativeDialog, waitFor, withApp } from "./webdriver.mjs";

function run(program, args, cwd) {
  const r = spawnSync(program, args, { cwd, encoding: "utf8", timeout: 30000 });
  assert.equal(r.status, 0, `${program} ${args.join(" ")}: ${r.stderr ?? r.error}`);
}

/** A certificate authority and a certificate for `names` (127.0.0.1 unless given) signed by it. */
function makeCertificates(dir, names = "IP:127.0.0.1") {
  mkdirSync(dir, { recursive: true });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  run("openssl", ["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Plandeck test CA"], dir);
  run("openssl", ["req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"], dir);
  writeFileSync(join(dir, "ext.cnf"), `subjectAltName=${names}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  run("openssl", ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf"], dir);
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

/** POSTs JSON to the page over HTTPS, trusting only the test's authority. */
function post(url, body, ca) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(url, { method: "POST", ca, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data) } }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode, body: JSON.parse(text || "null") }));
    });
    req.on("error", reject);
    req.end(data);
  });
}

/** Pairs as the page does: a P-256 key of WebCrypto's, the link's secret signed with it. */
async function pairThrough(link, name, ca) {
  const secret = new URL(link).hash.replace(/^#pair=/, "");
  const keys = await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  const jwk = await webcrypto.subtle.exportKey("jwk", keys.publicKey);
  const sig = await webcrypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, keys.privateKey, new TextEncoder().encode(`plandeck-pair-v1\n${secret}`));
  const base = link.split("#")[0];
  return post(`${base}api/pair`, { secret, name, publicKey: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, signature: b64url(sig) }, ca);
}

test("Settings → Phone: on at the typed address, a QR code of the pairing link, a phone paired through it appears, revoke takes it out", async () => {
  const home = mkdtempSync(join(tmpdir(), "plandeck-e2e-phone-"));
  const certs = join(home, "certs");
  makeCertificates(certs);
  const ca = readFileSync(join(certs, "ca.pem"));
  const port = await freePort();
  await withApp({ home }, async (s) => {
    await s.click("[data-view=settings]");
    await s.waitForText("off", "[data-testid=phone-state]");
    await s.waitFor("[data-testid=phone-no-devices]");

    // Every interface typed: said plainly before anything is turned on.
    await s.type("[data-testid=phone-listen]", `0.0.0.0:${port}`);
    await s.waitForText("every interface", "[data-testid=phone-every-interface]");
    await s.exec("const e = document.querySelector('[data-testid=phone-listen]'); e.value = ''; e.dispatchEvent(new Event('input')); return null;");
    await s.type("[data-testid=phone-listen]", `127.0.0.1:${port}`);
    await s.type("[data-testid=phone-cert]", join(certs, "server.pem"));
    await s.type("[data-testid=phone-key]", join(certs, "server.key"));

    // Cancelled in the native dialog: nothing turned on.
    await s.click("[data-testid=phone-on]");
    assert.ok(clickNativeDialog(`^Serve the phone page at https://127\\.0\\.0\\.1:${port}/`, 0.25), "a native dialog names the address");
    await s.waitFor("[role=alert][data-kind=refused]");
    assert.match(await s.text("[data-testid=phone-state]"), /off/);

    await s.click("[data-testid=phone-on]");
    assert.ok(clickNativeDialog(`^Serve the phone page at https://127\\.0\\.0\\.1:${port}/`, 0.75));
    await s.waitForText("served by plandeck serve --daemon", "[data-testid=phone-state]", { timeout: 30000 });

    // The pairing link as a QR code drawn in the window, with the link and its countdown.
    await s.click("[data-testid=phone-pair]");
    await s.waitFor("[data-testid=phone-qr] svg path");
    const drawn = await s.exec(
      "const svg = document.querySelector('[data-testid=phone-qr] svg'); const r = svg.getBoundingClientRect(); return { w: r.width, h: r.height, d: svg.querySelector('path').getAttribute('d').length };",
    );
    assert.ok(drawn.w >= 150 && drawn.h >= 150 && drawn.d > 200, `the QR code is drawn: ${JSON.stringify(drawn)}`);
    const link = (await s.text("[data-testid=phone-link]")).trim();
    assert.ok(link.startsWith(`https://127.0.0.1:${port}/#pair=`), link);
    assert.match(await s.text("[data-testid=phone-expiry]"), /expires in (\d+ s|\d+ min)/);
    await s.exec("document.querySelector('[data-testid=phone-pairing]').scrollIntoView({ block: 'center' }); return null;");
    await s.screenshot("settings-phone-pairing");

    // A phone pairs through the link: it appears in the list, the link goes.
    const paired = await pairThrough(link, "Pixel <b>7</b>", ca);
    assert.equal(paired.status, 200, JSON.stringify(paired.body));
    await s.waitForText("Pixel <b>7</b>", "[data-testid=phone-device]", { timeout: 10000 });
    await waitFor(async () => !(await s.exec("return !!document.querySelector('[data-testid=phone-pairing]')")), { what: "the used link to go" });
    assert.equal(await s.exec("return document.querySelector('[data-testid=phone-device] b')"), null, "the phone's name is text, never markup");
    // The link was used once: a second pairing with it is refused.
    const again = await pairThrough(link, "Other", ca);
    assert.equal(again.status, 403);

    // Revoke, confirmed here: it leaves the list.
    await s.click("[data-testid=phone-revoke]");
    await s.waitForText("Revoke “Pixel <b>7</b>”?", "[data-testid=phone-device]");
    await s.click("[data-testid=phone-revoke-confirm]");
    await s.waitFor("[data-testid=phone-no-devices]");
    const devices = JSON.parse(readFileSync(join(home, ".local/share/plandeck/phone/devices.json"), "utf8")).devices;
    assert.equal(devices[0].revoked, true);

    // Off: the page stops.
    await s.click("[data-testid=phone-off]");
    await s.waitForText("off", "[data-testid=phone-state]", { timeout: 15000 });
    await assert.rejects(post(`https://127.0.0.1:${port}/api/pending`, {}, ca));
  });
});

/** POSTs JSON to the page at https://localhost:PORT (on 127.0.0.1), trusting only the test's CA. */
function postLocalhost(port, path, body, ca) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      { host: "127.0.0.1", port, path, servername: "localhost", method: "POST", ca, headers: { host: `localhost:${port}`, "content-type": "application/json", "content-length": Buffer.byteLength(data) } },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode, body: JSON.parse(text || "null") }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

/** A LocalAPI stand-in on a unix socket: status, cert and whois in tailscaled's shapes. `who`
 * says whose node the callers are ("amy": the machine's own user, "bob": another). */
function localApi(socket, certs, who) {
  const pair = readFileSync(join(certs, "server.key"), "utf8") + readFileSync(join(certs, "server.pem"), "utf8");
  const server = createHttpServer((req, res) => {
    let body;
    let code = 200;
    if (req.url === "/localapi/v0/status?peers=false") {
      body = JSON.stringify({
        BackendState: "Running",
        Self: { DNSName: "localhost.", TailscaleIPs: ["127.0.0.1"], UserID: 1111 },
        User: { 1111: { ID: 1111, LoginName: "amy@example.com" } },
      });
    } else if (req.url === "/localapi/v0/cert/localhost?type=pair") {
      body = pair;
    } else if (req.url.startsWith("/localapi/v0/whois?addr=")) {
      const ip = decodeURIComponent(req.url.split("=")[1]).replace(/:\d+$/, "");
      const id = who.user === "amy" ? 1111 : 2222;
      body = JSON.stringify({
        Node: { Name: `${who.user}-phone.tail1234.ts.net.`, User: id, Addresses: [`${ip}/32`] },
        UserProfile: { ID: id, LoginName: `${who.user}@example.com` },
      });
    } else {
      code = 404;
      body = "404 page not found\n";
    }
    res.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(socket);
  return server;
}

test("Settings → Phone: Tailscale offered with its address and name, the page served there, each caller checked by whois", async () => {
  const home = mkdtempSync(join(tmpdir(), "plandeck-e2e-phone-ts-"));
  const certs = join(home, "certs");
  makeCertificates(certs, "DNS:localhost");
  const ca = readFileSync(join(certs, "ca.pem"));
  const socket = join(home, "tailscaled.sock");
  const who = { user: "amy" };
  const api = localApi(socket, certs, who);
  const port = await freePort();
  try {
    await withApp({ home, env: { PLANDECK_TAILSCALE_SOCKET: socket } }, async (s) => {
      await s.click("[data-view=settings]");
      await s.waitForText("off", "[data-testid=phone-state]");
      await s.waitFor("[data-testid=phone-where-tailscale]");
      const offered = await s.exec("const i = document.querySelector('[data-testid=phone-where-tailscale]'); return { checked: i.checked, text: i.closest('label').textContent };");
      assert.ok(offered.checked, "chosen first while the page is off");
      assert.match(offered.text, /Tailscale \(127\.0\.0\.1, localhost\)/);
      await s.exec(`const e = document.querySelector('[data-testid=phone-port]'); e.value = '${port}'; e.dispatchEvent(new Event('input')); return null;`);
      await s.click("[data-testid=phone-on]");
      assert.ok(clickNativeDialog(`^Serve the phone page at https://localhost:${port}/ on Tailscale`, 0.75), "a native dialog names the address and name");
      await s.waitForText("served by plandeck serve --daemon", "[data-testid=phone-state]", { timeout: 30000 });
      await s.waitForText("checked by whois", "[data-testid=phone-tailscale]");
      assert.match(await s.text("[data-testid=phone-state]"), new RegExp(`https://localhost:${port}/`));

      // The machine's own user's device is answered (its call then checked by its signature);
      // another user's device is refused by whois, with the reason.
      const mine = await postLocalhost(port, "/api/pending", {}, ca);
      assert.notEqual(mine.body?.error?.kind, "notYourTailnet", JSON.stringify(mine.body));
      who.user = "bob";
      const theirs = await postLocalhost(port, "/api/pending", {}, ca);
      assert.equal(theirs.status, 403, JSON.stringify(theirs.body));
      assert.equal(theirs.body.error.kind, "notYourTailnet");
      assert.match(theirs.body.error.message, /bob@example\.com/);

      await s.click("[data-testid=phone-off]");
      await s.waitForText("off", "[data-testid=phone-state]", { timeout: 15000 });
    });
  } finally {
    api.close();
  }
});
