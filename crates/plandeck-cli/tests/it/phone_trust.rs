//! What the phone page trusts, in the real thing: a passkey made and asked by Chromium's WebAuthn
//! virtual authenticator (through chromedriver) and checked by the server, with each refusal
//! (the person not verified, another request's or plan's assertion, a replay, the page's key
//! alone); and the page on Tailscale, with a LocalAPI stand-in on a unix socket answering
//! `status`, `cert` and `whois` in their real shapes: only the machine's user's devices answered.

use crate::common;
use crate::phone::{claude_waits, status, Browser, EndDaemon};

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use common::{plandeck, plandeck_process};
use plandeck_core::gate;
use plandeck_testkit::free_port;
use serde_json::{json, Value};

/// A certificate authority and a certificate for `names` (`DNS:…`, `IP:…`) signed by it, in
/// `dir` (ca.pem, server.pem, server.key: the testkit's); returns the base64 SHA-256 of the
/// certificate's SPKI (what Chromium is told to trust).
fn certificates(dir: &Path, names: &str) -> String {
    let ca = plandeck_testkit::tls::test_ca_for(dir, names);
    plandeck_testkit::tls::spki_sha256_b64(&ca.server_pem)
}

/// The page's own functions, loaded in it, that make a decision's body as the page sends it;
/// `assertFor` (a request id and plan hash) makes the passkey sign another decision than the one
/// sent, `uv` the user verification asked of the passkey, `noPasskey` sends the page's key alone.
const MAKE_DECISION: &str = "
const d = await loadDevice(); device = d;
async function make(id, hash, decision, feedback, opts) {
  opts = opts || {};
  const n = nonce(); const e = expiry();
  const canon = (i, h) => sha256hex(feedback).then(f => `plandeck-decision-v1\\n${i}\\n${h}\\n${decision}\\n${f}\\n${n}\\n${e}`);
  const msg = await canon(id, hash);
  const signed = opts.assertFor ? await canon(opts.assertFor.id, opts.assertFor.hash) : msg;
  const passkey = opts.noPasskey ? null : await passkeyAssertion(d.passkey, signed, opts.uv);
  return {requestId: id, planHash: hash, decision, feedback, device: d.id, nonce: n, expires: e,
    signature: await signText(d.privateKey, msg), passkey};
}
async function send(body) { const r = await post('/api/decide', body); return {ok: r.ok, body: r.body}; }
";

fn kind(v: &Value) -> String {
    v["body"]["error"]["kind"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_phone_pairs_with_a_passkey_and_each_decision_needs_it_with_the_person_verified() {
    let s = crate::gate::claude_setup();
    let home = s.home.clone();
    let certs = home.join("certs");
    // A passkey's relying party is a name, never an IP address: the page is named localhost.
    let spki = certificates(&certs, "DNS:localhost,IP:127.0.0.1");
    let port = free_port();
    let (code, out, err) = common::output(plandeck_process(&home).args([
        "phone",
        "on",
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--cert",
        certs.join("server.pem").to_str().unwrap(),
        "--key",
        certs.join("server.key").to_str().unwrap(),
        "--name",
        "localhost",
        "--json",
    ]));
    assert_eq!(code, 0, "{out}{err}");
    let _off = EndDaemon(&home);
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let (hook, req) = claude_waits(&s.roots, &s.stdin, &[]);
    let (code, out, err) = plandeck(&home, &["phone", "pair", "--json"]);
    assert_eq!(code, 0, "{err}");
    let link = serde_json::from_str::<Value>(&out).unwrap()["link"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        link.starts_with(&format!("https://localhost:{port}/#pair=")),
        "{link}"
    );

    let browser = Browser::start(&home, &spki);
    let session = browser.session.clone();
    // The phone's platform authenticator, verifying its person (a fingerprint, a face).
    let auth = browser.call(
        "POST",
        &format!("/session/{session}/webauthn/authenticator"),
        Some(
            &json!({"protocol": "ctap2", "transport": "internal", "hasResidentKey": true,
            "hasUserVerification": true, "isUserVerified": true}),
        ),
    );
    let auth = auth
        .as_str()
        .unwrap_or_else(|| panic!("no virtual authenticator: {auth}"))
        .to_owned();
    let set_verified = |yes: bool| {
        let r = browser.call(
            "POST",
            &format!("/session/{session}/webauthn/authenticator/{auth}/uv"),
            Some(&json!({"isUserVerified": yes})),
        );
        assert!(
            r.get("error").is_none(),
            "the authenticator's user verification set: {r}"
        );
    };
    browser.go(&link);
    browser.wait_text("status", "the pairing form", |t| t == "not paired");
    browser.type_into("#pair-name", "Pixel");
    browser.click("#pair-button");
    browser.wait_text("status", "the queue", |t| t.contains("1 waiting"));
    let said = browser.text("result");
    assert!(said.contains("with a passkey"), "{said}");
    let devices: Value =
        serde_json::from_str(&plandeck(&home, &["phone", "devices", "--json"]).1).unwrap();
    assert_eq!(
        devices[0]["passkey"]["rpId"],
        json!("localhost"),
        "{devices}"
    );
    let creds = browser.call(
        "GET",
        &format!("/session/{session}/webauthn/authenticator/{auth}/credentials"),
        None,
    );
    assert_eq!(creds.as_array().map(Vec::len), Some(1), "{creds}");

    // Approved from the page: the passkey is asked, the person verified, the agent implements.
    browser.click(&format!("#queue .card[data-id='{}'] button", req.id));
    browser.wait_text("plan", "the plan", |t| t.contains("add pagination"));
    browser.click("#approve");
    let out = hook.join().unwrap();
    assert!(out.stdout.contains("\"allow\""), "{out:?}");
    let said = browser.wait_text("result", "the approval's outcome", |t| !t.is_empty());
    assert!(!said.starts_with("Refused"), "{said}");

    // The next plan: every refusal below leaves it waiting.
    let (hook, req2) = claude_waits(&s.roots, &s.stdin, std::slice::from_ref(&req.id));
    let still_waiting = |what: &str| {
        assert!(
            gate::pending(&s.roots).iter().any(|r| r.id == req2.id),
            "{what}: nothing decided"
        );
    };
    // (The approved one may still be listed until Claude Code is seen to take it.)
    browser.go(link.split('#').next().unwrap());
    let card = format!("#queue .card[data-id='{}']", req2.id);
    plandeck_testkit::wait_for("the second request's card", || {
        (browser.js(&format!("return !!document.querySelector(\"{card}\")")) == json!(true))
            .then_some(())
    });
    let (id, hash) = (
        req2.id.clone(),
        req2.plan_hash.clone().expect("a plan hash"),
    );

    // The person not verified (the authenticator cannot): the page's button sends nothing.
    set_verified(false);
    // The first plan's text goes from the page, so the second one is known to be shown.
    browser.js("document.getElementById('plan').textContent = ''; return null");
    browser.click(&format!("#queue .card[data-id='{id}'] button"));
    browser.wait_text("plan", "the second plan", |t| t.contains("add pagination"));
    browser.js("document.getElementById('result').textContent = ''; return null");
    browser.click("#approve");
    let said = browser.wait_text("result", "the page's outcome", |t| !t.is_empty());
    assert!(said.starts_with("Not sent"), "{said}");
    still_waiting("no verification at the page");
    // A page that asks the passkey without verification: the server refuses it.
    let r = browser.js(&format!(
        "{MAKE_DECISION} return await send(await make('{id}', '{hash}', 'approve', '', {{uv: 'discouraged'}}));"
    ));
    assert_eq!(kind(&r), "userNotVerified", "{r}");
    assert!(r["body"]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("nothing was decided"));
    still_waiting("an assertion without user verification");
    set_verified(true);

    // An assertion of another plan hash, and of another request, sent for this one.
    for other in [
        json!({"id": id, "hash": "0".repeat(64)}),
        json!({"id": "another-request", "hash": hash}),
    ] {
        let r = browser.js(&format!(
            "{MAKE_DECISION} return await send(await make('{id}', '{hash}', 'approve', '', {{assertFor: {other}}}));"
        ));
        assert_eq!(kind(&r), "badPasskey", "{r}");
        assert!(
            r["body"]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("another challenge"),
            "{r}"
        );
        still_waiting("another decision's assertion");
    }
    // The page's key alone, for a device paired with a passkey.
    let r = browser.js(&format!(
        "{MAKE_DECISION} return await send(await make('{id}', '{hash}', 'approve', '', {{noPasskey: true}}));"
    ));
    assert_eq!(kind(&r), "passkeyRequired", "{r}");
    still_waiting("no passkey");

    // A captured assertion re-sent under a fresh nonce (re-signed by the page's key): refused;
    // the real one decides; sent again: a replay, refused.
    let r = browser.js(&format!(
        "{MAKE_DECISION}
         const body = await make('{id}', '{hash}', 'reject', 'From the passkey.', {{}});
         const copy = await make('{id}', '{hash}', 'reject', 'From the passkey.', {{noPasskey: true}});
         copy.passkey = body.passkey;
         const first = await send(copy);
         const real = await send(body);
         const again = await send(body);
         return {{first, real, again}};"
    ));
    assert_eq!(kind(&r["first"]), "badPasskey", "{r}");
    assert_eq!(r["real"]["ok"], json!(true), "{r}");
    assert_eq!(kind(&r["again"]), "replayed", "{r}");
    let out = hook.join().unwrap();
    assert!(
        out.stdout.contains("\"deny\"") && out.stdout.contains("From the passkey."),
        "{out:?}"
    );
    let lines = plandeck_core::review::decide::audit_log(&s.roots, None)
        .unwrap()
        .into_iter()
        .filter(|d| d.request_id.as_deref() == Some(id.as_str()))
        .count();
    assert_eq!(lines, 1, "one outcome in the log");
}

/// What a request on the page answers, as curl gets it trusting the test's authority with `name`
/// resolved to `ip`: the status and the body; `None` when nothing answered.
fn fetch(
    certs: &Path,
    name: &str,
    ip: &str,
    port: u16,
    path: &str,
    body: Option<&str>,
) -> Option<(String, String)> {
    let out_file = certs.join(format!("answer-{}", free_port()));
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "-o"])
        .arg(&out_file)
        .args(["-w", "%{http_code}", "--max-time", "5", "--resolve"])
        .arg(format!("{name}:{port}:{ip}"))
        .arg("--cacert")
        .arg(certs.join("ca.pem"));
    if let Some(b) = body {
        cmd.args(["-H", "Content-Type: application/json", "--data-binary", b]);
    }
    let out = cmd
        .arg(format!("https://{name}:{port}{path}"))
        .output()
        .unwrap_or_else(|e| panic!("curl is needed by this test (scripts/setup.sh --test): {e}"));
    let code = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let body = std::fs::read_to_string(&out_file).unwrap_or_default();
    (out.status.success() && code != "000").then_some((code, body))
}

const TS_NAME: &str = "plandeck-test.tail1234.ts.net";

/// How the LocalAPI stand-in answers whois.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WhoIs {
    /// A phone of the machine's own user.
    Mine,
    /// A node of another user of the tailnet (shared in).
    Other,
    /// A tagged node (a server).
    Tagged,
    /// No node has that address (404).
    Unknown,
    /// Something that is not whois's JSON.
    Garbage,
}

/// A LocalAPI stand-in on a unix socket: `status`, `cert` and `whois` in the shapes tailscaled
/// gives (ipnstate.Status, the PEM pair, apitype.WhoIsResponse); it refuses a request whose Host
/// is not `local-tailscaled.sock` or that has an Origin, as tailscaled does. Returns the whois
/// addresses asked.
fn localapi(
    socket: &Path,
    certs: &Path,
    mode: Arc<Mutex<WhoIs>>,
    me: Arc<Mutex<i64>>,
) -> Arc<Mutex<Vec<String>>> {
    let listener = std::os::unix::net::UnixListener::bind(socket).unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let pair = format!(
        "{}{}",
        std::fs::read_to_string(certs.join("server.key")).unwrap(),
        std::fs::read_to_string(certs.join("server.pem")).unwrap()
    );
    let asked2 = asked.clone();
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let head = String::from_utf8_lossy(&buf).into_owned();
            let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
            let host_ok = head
                .lines()
                .any(|l| l.eq_ignore_ascii_case("host: local-tailscaled.sock"));
            let origin = head
                .lines()
                .any(|l| l.to_ascii_lowercase().starts_with("origin:"));
            let (code, body) = if !host_ok || origin {
                (403, "invalid localapi request\n".to_owned())
            } else if path == "/localapi/v0/status?peers=false" {
                let me = *me.lock().unwrap();
                (200, json!({
                    "Version": "1.78.1-t1234abcd-g5678efgh",
                    "TUN": true,
                    "BackendState": "Running",
                    "HaveNodeKey": true,
                    "AuthURL": "",
                    "TailscaleIPs": ["127.0.0.1", "fd7a:115c:a1e0::1"],
                    "Self": {
                        "ID": "nTEST1CNTRL", "PublicKey": "nodekey:0000", "HostName": "plandeck-test",
                        "DNSName": format!("{TS_NAME}."), "OS": "linux", "UserID": me,
                        "TailscaleIPs": ["127.0.0.1", "fd7a:115c:a1e0::1"],
                        "AllowedIPs": ["127.0.0.1/32"], "Addrs": null, "CurAddr": "", "Relay": "",
                        "RxBytes": 0, "TxBytes": 0, "Created": "2026-01-01T00:00:00Z",
                        "LastWrite": "0001-01-01T00:00:00Z", "LastSeen": "0001-01-01T00:00:00Z",
                        "LastHandshake": "0001-01-01T00:00:00Z", "Online": true, "ExitNode": false,
                        "ExitNodeOption": false, "Active": false, "PeerAPIURL": null,
                        "Capabilities": ["https"], "InNetworkMap": true, "InMagicSock": false, "InEngine": false
                    },
                    "Health": [],
                    "MagicDNSSuffix": "tail1234.ts.net",
                    "CurrentTailnet": {"Name": "amy@example.com", "MagicDNSSuffix": "tail1234.ts.net", "MagicDNSEnabled": true},
                    "CertDomains": [TS_NAME],
                    "User": {
                        "1111": {"ID": 1111, "LoginName": "amy@example.com", "DisplayName": "Amy", "ProfilePicURL": ""},
                        "2222": {"ID": 2222, "LoginName": "bob@example.com", "DisplayName": "Bob", "ProfilePicURL": ""}
                    },
                    "ClientVersion": null
                }).to_string())
            } else if path == format!("/localapi/v0/cert/{TS_NAME}?type=pair") {
                (200, pair.clone())
            } else if let Some(addr) = path.strip_prefix("/localapi/v0/whois?addr=") {
                asked2.lock().unwrap().push(addr.to_owned());
                // The node whois names holds the caller's address, as tailscaled's does.
                let ip = addr
                    .rsplit_once(':')
                    .map_or(addr, |(ip, _)| ip)
                    .replace("%5B", "")
                    .replace("%5D", "");
                let node = |user: i64, name: &str, tags: Value| {
                    json!({
                        "ID": 2, "StableID": "nPHONE2CNTRL", "Name": name, "User": user,
                        "Key": "nodekey:1111", "KeyExpiry": "2027-01-01T00:00:00Z",
                        "Machine": "mkey:2222", "DiscoKey": "discokey:3333",
                        "Addresses": [format!("{ip}/32"), "fd7a:115c:a1e0::2/128"],
                        "AllowedIPs": ["100.64.0.2/32"], "Endpoints": [], "HomeDERP": 1,
                        "Hostinfo": {"OS": "android", "Hostname": "pixel"}, "Created": "2026-01-01T00:00:00Z",
                        "Cap": 106, "Tags": tags, "Online": true, "MachineAuthorized": true
                    })
                };
                let profile = |id: i64, login: &str| json!({"ID": id, "LoginName": login, "DisplayName": login, "ProfilePicURL": ""});
                match *mode.lock().unwrap() {
                    WhoIs::Mine => (
                        200,
                        json!({"Node": node(1111, "pixel.tail1234.ts.net.", Value::Null),
                        "UserProfile": profile(1111, "amy@example.com"), "CapMap": {}})
                        .to_string(),
                    ),
                    WhoIs::Other => (
                        200,
                        json!({"Node": node(2222, "bobs-phone.tail1234.ts.net.", Value::Null),
                        "UserProfile": profile(2222, "bob@example.com"), "CapMap": {}})
                        .to_string(),
                    ),
                    WhoIs::Tagged => (
                        200,
                        json!({"Node": node(9999, "ci.tail1234.ts.net.", json!(["tag:server"])),
                        "UserProfile": profile(9999, "tagged-devices"), "CapMap": {}})
                        .to_string(),
                    ),
                    WhoIs::Unknown => (404, "no match for IP:port\n".to_owned()),
                    WhoIs::Garbage => (200, "<html>not whois</html>".to_owned()),
                }
            } else {
                (404, "404 page not found\n".to_owned())
            };
            let _ = write!(
                s,
                "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    asked
}

#[test]
fn the_page_on_tailscale_answers_only_the_machines_own_users_devices() {
    let s = crate::gate::claude_setup();
    let home = s.home.clone();
    let certs = home.join("certs");
    certificates(&certs, &format!("DNS:{TS_NAME}"));
    let socket: PathBuf = home.join("tailscaled.sock");
    let mode = Arc::new(Mutex::new(WhoIs::Mine));
    let me = Arc::new(Mutex::new(1111));
    let asked = localapi(&socket, &certs, mode.clone(), me.clone());
    let port = free_port();
    let (code, out, err) = common::output(
        plandeck_process(&home)
            .env("PLANDECK_TAILSCALE_SOCKET", &socket)
            .args([
                "phone",
                "on",
                "--tailscale",
                "--port",
                &port.to_string(),
                "--json",
            ]),
    );
    assert_eq!(code, 0, "{out}{err}");
    let _off = EndDaemon(&home);
    let on: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(on["tailscale"], json!(true), "{on}");
    assert_eq!(on["listen"], json!(format!("127.0.0.1:{port}")));
    assert_eq!(on["url"], json!(format!("https://{TS_NAME}:{port}/")));
    let st = status(&home);
    assert_eq!(st["tailscale"], json!(true), "{st}");
    assert_eq!(st["listen"], json!(format!("127.0.0.1:{port}")), "{st}");
    assert_eq!(
        st["url"],
        json!(format!("https://{TS_NAME}:{port}/")),
        "{st}"
    );
    let (_, said, _) = plandeck(&home, &["phone", "status"]);
    assert!(said.contains("whois"), "{said}");

    // A phone of the machine's own user: the page, over the certificate Tailscale gave for the
    // MagicDNS name (curl checks it against that name), and whois asked for that caller.
    let (code, body) = fetch(&certs, TS_NAME, "127.0.0.1", port, "/", None).expect("an answer");
    assert_eq!(code, "200", "{body}");
    assert!(body.contains("Plandeck"));
    assert!(
        asked
            .lock()
            .unwrap()
            .iter()
            .any(|a| a.starts_with("127.0.0.1:")),
        "{asked:?}"
    );
    // Not served on an address not chosen: nothing answers on another of this machine's addresses.
    assert_eq!(fetch(&certs, TS_NAME, "127.0.0.2", port, "/", None), None);

    // A waiting plan, and callers whois does not name as the user's own: each refused with its
    // reason before anything else is read (not even a device's signature), nothing decided.
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let (hook, req) = claude_waits(&s.roots, &s.stdin, &[]);
    let decision = json!({"requestId": req.id, "planHash": req.plan_hash, "decision": "approve",
        "device": "0123456789abcdef", "nonce": "aaaaaaaaaaaaaaaaaaaa", "expires": 1, "signature": "AA"})
    .to_string();
    for (who, reason) in [
        (
            WhoIs::Other,
            "bob@example.com, not a device of this machine's Tailscale user",
        ),
        (WhoIs::Tagged, "a tagged node (tag:server)"),
        (WhoIs::Unknown, "does not say who"),
        (WhoIs::Garbage, "does not say who"),
    ] {
        *mode.lock().unwrap() = who;
        for (path, body) in [("/", None), ("/api/decide", Some(decision.as_str()))] {
            let (code, answer) =
                fetch(&certs, TS_NAME, "127.0.0.1", port, path, body).expect("an answer");
            assert_eq!(code, "403", "{who:?} {path}: {answer}");
            let v: Value = serde_json::from_str(&answer).unwrap();
            assert_eq!(v["error"]["kind"], json!("notYourTailnet"), "{who:?}: {v}");
            let message = v["error"]["message"].as_str().unwrap();
            assert!(message.contains(reason), "{who:?}: {message}");
            assert!(
                !message.contains("amy@"),
                "the caller is not told whose machine it is: {message}"
            );
        }
        assert!(
            gate::pending(&s.roots).iter().any(|r| r.id == req.id),
            "{who:?}: nothing decided"
        );
    }
    // The user's own phone again: answered. Then this machine logged in as another user: the
    // page is served again for that user only, and the first user's phone is refused.
    *mode.lock().unwrap() = WhoIs::Mine;
    let (code, _) = fetch(&certs, TS_NAME, "127.0.0.1", port, "/", None).expect("an answer");
    assert_eq!(code, "200");
    *me.lock().unwrap() = 2222;
    let answer = plandeck_testkit::wait_for("the page to refuse amy's phone", || {
        fetch(&certs, TS_NAME, "127.0.0.1", port, "/", None).filter(|(c, _)| c == "403")
    });
    assert!(answer.1.contains("notYourTailnet"), "{answer:?}");
    // tailscaled gone: refused or not served, never let in unchecked.
    *me.lock().unwrap() = 1111;
    std::fs::remove_file(&socket).unwrap();
    for _ in 0..3 {
        if let Some((code, answer)) = fetch(&certs, TS_NAME, "127.0.0.1", port, "/", None) {
            assert_eq!(code, "403", "{answer}");
            assert!(answer.contains("notYourTailnet"), "{answer}");
        }
    }
    assert!(gate::pending(&s.roots).iter().any(|r| r.id == req.id));
    let (code, _, err) = plandeck(&home, &["reject", &req.id, "--feedback", "done"]);
    assert_eq!(code, 0, "{err}");
    let _ = hook.join().unwrap();
}
