//! The phone page in a real browser: Debian's Chromium driven by chromedriver, headless, at a
//! phone's size, against `plandeck phone on` on loopback HTTPS with a certificate authority this
//! test makes (openssl). It pairs by the link `phone pair` prints, sees a waiting Claude Code plan
//! (filed by the real hook with the fixture's input), rejects it with feedback from the page (the
//! hook hands the agent that feedback), and the log names the device; then the page and the CLI
//! decide one request at once: one outcome.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{plandeck, plandeck_process};
use plandeck_core::config::Roots;
use plandeck_core::gate::{self, GateRequest, HookOptions, HookOutcome};
use plandeck_testkit::{free_port, wait_for};
use serde_json::{json, Value};

/// A certificate authority and a server certificate for 127.0.0.1 signed by it; returns the
/// base64 SHA-256 of the server key's SPKI (what Chromium is told to trust).
fn make_certificates(dir: &Path) -> String {
    let ca = plandeck_testkit::tls::test_ca(dir);
    plandeck_testkit::tls::spki_sha256_b64(&ca.server_pem)
}

/// chromedriver and one session of headless Chromium at a phone's size.
pub(crate) struct Browser {
    driver: Child,
    port: u16,
    pub(crate) session: String,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.call("DELETE", &format!("/session/{}", self.session), None);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// One WebDriver call over plain HTTP/1.1 to chromedriver on loopback.
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> std::io::Result<Value> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    // Read by its length: chromedriver may keep the connection open.
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let body = loop {
        let n = s.read(&mut chunk)?;
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(usize::MAX);
            if body.len() >= length || n == 0 {
                break body.to_owned();
            }
        }
        if n == 0 {
            break String::new();
        }
    };
    Ok(serde_json::from_str(&body).unwrap_or(Value::Null))
}

impl Browser {
    pub(crate) fn start(dir: &Path, spki: &str) -> Browser {
        let port = free_port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("chromedriver is needed by this test (scripts/setup.sh --test): {e}")
            });
        wait_for("chromedriver to answer", || {
            http(port, "GET", "/status", None)
                .ok()
                .filter(|v| v["value"]["ready"] == json!(true))
        });
        let profile = dir.join("chromium-profile");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                    "--window-size=390,844",
                    format!("--user-data-dir={}", profile.display()),
                    format!("--ignore-certificate-errors-spki-list={spki}")],
                "mobileEmulation": {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3.0}}
            }
        }}});
        let v = http(port, "POST", "/session", Some(&caps)).unwrap();
        let session = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no browser session: {v}"))
            .to_owned();
        Browser {
            driver,
            port,
            session,
        }
    }

    pub(crate) fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let v = http(self.port, method, path, body).unwrap();
        v["value"].clone()
    }

    pub(crate) fn go(&self, url: &str) {
        self.call(
            "POST",
            &format!("/session/{}/url", self.session),
            Some(&json!({"url": url})),
        );
    }

    /// Runs `script` in the page and returns what it returned.
    pub(crate) fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            &format!("/session/{}/execute/sync", self.session),
            Some(&json!({"script": script, "args": []})),
        )
    }

    pub(crate) fn text(&self, id: &str) -> String {
        self.js(&format!(
            "const e = document.getElementById('{id}'); return e ? e.textContent : null"
        ))
        .as_str()
        .unwrap_or_default()
        .to_owned()
    }

    /// Clicks the element `css` as a person does (through WebDriver's click).
    pub(crate) fn click(&self, css: &str) {
        let e = self.call(
            "POST",
            &format!("/session/{}/element", self.session),
            Some(&json!({"using": "css selector", "value": css})),
        );
        let id = e
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| panic!("no element {css}: {e}"))
            .to_owned();
        self.call(
            "POST",
            &format!("/session/{}/element/{id}/click", self.session),
            Some(&json!({})),
        );
    }

    pub(crate) fn type_into(&self, css: &str, text: &str) {
        let e = self.call(
            "POST",
            &format!("/session/{}/element", self.session),
            Some(&json!({"using": "css selector", "value": css})),
        );
        let id = e
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| panic!("no element {css}: {e}"))
            .to_owned();
        self.call(
            "POST",
            &format!("/session/{}/element/{id}/clear", self.session),
            Some(&json!({})),
        );
        self.call(
            "POST",
            &format!("/session/{}/element/{id}/value", self.session),
            Some(&json!({"text": text})),
        );
    }

    /// A Chrome DevTools command with no parameters, through chromedriver.
    fn cdp(&self, cmd: &str) -> Value {
        self.call(
            "POST",
            &format!("/session/{}/goog/cdp/execute", self.session),
            Some(&json!({"cmd": cmd, "params": {}})),
        )
    }

    pub(crate) fn wait_text(&self, id: &str, what: &str, want: impl Fn(&str) -> bool) -> String {
        wait_for(what, || Some(self.text(id)).filter(|t| want(t)))
    }
}

/// One message a push service received: its headers (lower-case names) and body.
type Pushed = (Vec<(String, String)>, Vec<u8>);

/// A push service on loopback HTTPS (the test CA's certificate for 127.0.0.1): answers 201 and
/// hands over each message's headers (lower-case names) and body.
fn push_service(certs: &Path) -> (u16, std::sync::mpsc::Receiver<Pushed>) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(certs.join("server.pem"))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    let key = PrivateKeyDer::from_pem_file(certs.join("server.key")).unwrap();
    let config = std::sync::Arc::new(
        rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap(),
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let conn = rustls::ServerConnection::new(config.clone()).unwrap();
            let mut tls = rustls::StreamOwned::new(conn, stream);
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let got = loop {
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..i]).into_owned();
                    let headers: Vec<(String, String)> = head
                        .lines()
                        .skip(1)
                        .filter_map(|l| l.split_once(':'))
                        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                        .collect();
                    let len: usize = headers
                        .iter()
                        .find(|(k, _)| k == "content-length")
                        .and_then(|(_, v)| v.parse().ok())
                        .unwrap_or(0);
                    if buf.len() >= i + 4 + len {
                        break Some((headers, buf[i + 4..i + 4 + len].to_vec()));
                    }
                }
                match tls.read(&mut chunk) {
                    Ok(0) | Err(_) => break None,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            };
            if let Some(got) = got {
                let _ = tls.write_all(
                    b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                let _ = tls.flush();
                let _ = tx.send(got);
            }
        }
    });
    (port, rx)
}

fn hook_opts() -> HookOptions {
    HookOptions {
        deadline: Duration::from_secs(120),
        hook_pid: std::process::id(),
        agent_pid: None,
        tmux_env: None,
    }
}

/// A Claude Code plan waiting: the real hook, run with the fixture's input, on a thread.
pub(crate) fn claude_waits(
    roots: &Roots,
    stdin: &[u8],
    known: &[String],
) -> (std::thread::JoinHandle<HookOutcome>, GateRequest) {
    let (r, s) = (roots.clone(), stdin.to_vec());
    let hook = std::thread::spawn(move || gate::hook_claude(&r, &s, hook_opts()));
    let req = wait_for("the request to be filed", || {
        gate::pending(roots)
            .into_iter()
            .find(|r| !known.contains(&r.id))
    });
    (hook, req)
}

#[test]
fn a_phone_pairs_by_the_link_and_rejects_with_feedback_and_one_decision_wins_a_race() {
    let s = crate::gate::claude_setup();
    let home = s.home.clone();
    let certs = home.join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    let spki = make_certificates(&certs);
    // The push service the page subscribes with: on loopback, trusted through the test CA (a debug
    // build's server reads PLANDECK_PUSH_TEST_CA; a release build never does).
    let (push_port, pushed) = push_service(&certs);
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let (code, out, err) = common::output(
        plandeck_process(&home)
            .env("PLANDECK_PUSH_TEST_CA", certs.join("ca.pem"))
            .args([
                "phone",
                "on",
                "--listen",
                &listen,
                "--cert",
                certs.join("server.pem").to_str().unwrap(),
                "--key",
                certs.join("server.key").to_str().unwrap(),
                "--json",
            ]),
    );
    assert_eq!(code, 0, "{out}{err}");
    let on: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(on["allInterfaces"], json!(false));
    // Turned on again as it is: the same server goes on.
    let (code, again, err) = common::output(plandeck_process(&home).args([
        "phone",
        "on",
        "--listen",
        &listen,
        "--cert",
        certs.join("server.pem").to_str().unwrap(),
        "--key",
        certs.join("server.key").to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(code, 0, "{again}{err}");
    let again: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(again["pid"], on["pid"]);
    // Ends the page and the per-user server serving it whatever happens below.
    let _off = EndDaemon(&home);

    // An earlier version of the plan was approved, and a comment waits on it: the page shows
    // the plan's diff against that version and the comment with the text it is on.
    let plan_file = s.plan_file.to_str().unwrap();
    std::fs::write(
        &s.plan_file,
        s.plan.replace("2. Return a cursor", "2. Return an offset"),
    )
    .unwrap();
    let (code, _, err) = plandeck(&home, &["approve", plan_file]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(&s.plan_file, &s.plan).unwrap();
    let (code, _, err) = plandeck(
        &home,
        &[
            "comment",
            plan_file,
            "--quote",
            "Write tests",
            "--text",
            "<b>Cover</b> the last page.",
        ],
    );
    assert_eq!(code, 0, "{err}");

    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let (hook, req) = claude_waits(&s.roots, &s.stdin, &[]);

    let (code, out, err) = plandeck(&home, &["phone", "pair", "--json"]);
    assert_eq!(code, 0, "{err}");
    let pair: Value = serde_json::from_str(&out).unwrap();
    let link = pair["link"].as_str().unwrap().to_owned();
    assert!(
        link.starts_with(&format!("https://127.0.0.1:{port}/#pair=")),
        "{link}"
    );
    assert!(pair["expires"].is_string());

    let browser = Browser::start(&home, &spki);
    browser.go(&link);
    browser.wait_text("status", "the pairing form", |t| t == "not paired");
    assert_eq!(
        browser.js("return location.hash"),
        json!(""),
        "the secret leaves the address bar"
    );
    browser.type_into("#pair-name", "Pixel");
    browser.click("#pair-button");
    let status = browser.wait_text("status", "the queue", |t| t.contains("1 waiting"));
    assert!(status.starts_with("Pixel · "), "{status}");
    let devices: Value =
        serde_json::from_str(&plandeck(&home, &["phone", "devices", "--json"]).1).unwrap();
    assert_eq!(devices[0]["name"], json!("Pixel"));
    assert!(devices[0]["lastSeen"].is_string());
    // The key was made by WebCrypto and cannot leave the phone.
    let extractable = browser.js(
        "return await new Promise(r => { const o = indexedDB.open('plandeck-phone', 1);
         o.onsuccess = () => { const g = o.result.transaction('keys').objectStore('keys').get('device'); \
         g.onsuccess = () => r(g.result.privateKey.extractable); }; })",
    );
    assert_eq!(extractable, json!(false));

    // Installable to the home screen: the manifest and the service worker are served (with their
    // types, under the page's CSP) and the worker is registered; it has no cache.
    let installed = browser.js(
        "const r = await fetch('/manifest.webmanifest'); const m = await r.json();
         const reg = await navigator.serviceWorker.ready;
         const w = await fetch('/sw.js');
         return {type: r.headers.get('content-type'), name: m.name, display: m.display,
           link: document.querySelector('link[rel=manifest]').getAttribute('href'),
           worker: reg.active ? reg.active.scriptURL : null, scope: reg.scope,
           workerType: w.headers.get('content-type'), caches: (await caches.keys()).length,
           pushButton: !document.getElementById('push-button').hidden}",
    );
    assert_eq!(
        installed["type"],
        json!("application/manifest+json"),
        "{installed}"
    );
    assert_eq!(installed["name"], json!("Plandeck"));
    assert_eq!(installed["display"], json!("standalone"));
    assert_eq!(installed["link"], json!("/manifest.webmanifest"));
    assert_eq!(
        installed["worker"],
        json!(format!("https://127.0.0.1:{port}/sw.js")),
        "the service worker is registered: {installed}"
    );
    assert_eq!(
        installed["scope"],
        json!(format!("https://127.0.0.1:{port}/"))
    );
    assert!(installed["workerType"]
        .as_str()
        .unwrap()
        .starts_with("text/javascript"));
    assert_eq!(installed["caches"], json!(0), "nothing is cached");
    assert_eq!(installed["pushButton"], json!(true));
    // The browser itself loaded the manifest (the CSP lets it) and finds the page installable.
    let manifest = browser.cdp("Page.getAppManifest");
    assert!(
        manifest["data"]
            .as_str()
            .unwrap_or_default()
            .contains("\"standalone\"")
            && manifest["errors"].as_array().is_some_and(|e| e.is_empty()),
        "{manifest}"
    );
    let installable = browser.cdp("Page.getInstallabilityErrors");
    assert_eq!(
        installable["installabilityErrors"],
        json!([]),
        "installable to the home screen: {installable}"
    );
    // The page's subscription, signed by its device key as the page sends it, is kept.
    let subscribed = browser.js(&format!(
        "const k = await crypto.subtle.generateKey({{name: 'ECDH', namedCurve: 'P-256'}}, true, ['deriveBits']);
         const p256dh = b64url(await crypto.subtle.exportKey('raw', k.publicKey));
         const auth = b64url(crypto.getRandomValues(new Uint8Array(16)));
         const r = await sendSubscription({{endpoint: 'https://127.0.0.1:{push_port}/push/v2/opaque', keys: {{p256dh, auth}}}});
         const key = (await (await fetch('/api/push/key')).json()).key;
         return {{ok: r.ok, body: r.body, key}}"
    ));
    assert_eq!(subscribed["ok"], json!(true), "{subscribed}");
    let vapid_key = subscribed["key"].as_str().unwrap().to_owned();
    let status: Value =
        serde_json::from_str(&plandeck(&home, &["phone", "status", "--json"]).1).unwrap();
    assert_eq!(status["pushDevices"], json!(1), "{status}");

    // The card names the machine and the agent.
    let card = browser.text("queue");
    let machine = plandeck_core::phone::server::machine();
    assert!(
        card.contains(&machine) && card.contains("Claude Code"),
        "{card}"
    );
    browser.click(&format!("#queue .card[data-id='{}'] button", req.id));
    let plan = browser.wait_text("plan", "the plan", |t| t.contains("add pagination"));
    assert!(plan.contains("Return a cursor"), "{plan}");
    // Its diff against the approved version, and its comment with its anchor, as text.
    let summary = browser.text("diff-summary");
    assert!(
        summary.starts_with("Changes since approved ") && summary.ends_with("+1 −1"),
        "{summary}"
    );
    let diff = browser.text("diff");
    assert!(
        diff.contains("- 2. Return an offset") && diff.contains("+ 2. Return a cursor"),
        "{diff}"
    );
    let comments = browser.text("comments");
    assert!(
        comments.contains("line 5 · open")
            && comments.contains("Write tests")
            && comments.contains("<b>Cover</b> the last page."),
        "the comment and the text it is on: {comments}"
    );
    assert_eq!(
        browser.js("return document.querySelectorAll('#comments b, #diff b').length"),
        json!(0),
        "a comment's markup is shown as text"
    );

    browser.type_into("#feedback", "Use keyset pagination; no offsets.");
    browser.click("#reject");
    let out = hook.join().unwrap();
    assert!(out.stdout.contains("\"deny\""), "{out:?}");
    assert!(
        out.stdout.contains("Use keyset pagination; no offsets."),
        "the agent gets the phone's feedback: {out:?}"
    );
    let said = browser.wait_text("status", "the queue again", |t| t.contains("0 waiting"));
    assert!(said.contains("Pixel"), "{said}");
    let logged = plandeck_core::review::decide::log(&s.roots, None).unwrap();
    let d = logged
        .iter()
        .find(|d| d.request_id.as_deref() == Some(req.id.as_str()))
        .expect("the decision is logged");
    let by = d.decided_by.clone().unwrap_or_default();
    assert!(
        by.starts_with("the phone \"Pixel\" (device "),
        "the log names the device: {by}"
    );

    // The page and the command line decide one request at the same moment: one outcome.
    let (hook, req2) = claude_waits(&s.roots, &s.stdin, std::slice::from_ref(&req.id));
    // The server pushed it to the subscribed page's push service: encrypted, signed with the key
    // the page subscribed with, and nothing of the plan.
    let (headers, body) = wait_for("the push for the second request", || pushed.try_recv().ok());
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert_eq!(header("content-encoding"), "aes128gcm");
    assert!(
        header("authorization").ends_with(&format!(", k={vapid_key}")),
        "{headers:?}"
    );
    let seen = String::from_utf8_lossy(&body);
    assert!(
        !seen.contains("pagination") && !seen.contains("Plan waiting"),
        "encrypted: no text in the clear"
    );
    assert!(pushed.try_recv().is_err(), "one message for one request");
    browser.click("#refresh");
    browser.wait_text("status", "the second request", |t| t.contains("1 waiting"));
    // The first plan's text goes from the page, so the second one is known to be shown.
    browser.js("document.getElementById('plan').textContent = ''; return null");
    browser.click(&format!("#queue .card[data-id='{}'] button", req2.id));
    browser.wait_text("plan", "the second plan", |t| t.contains("add pagination"));
    browser.type_into("#feedback", "From the phone.");
    browser.js("document.getElementById('result').textContent = ''");
    let mut cli = plandeck_process(&home);
    cli.args(["reject", &req2.id, "--feedback", "From the command line."]);
    let cli = std::thread::spawn(move || common::output(&mut cli));
    browser.click("#reject");
    let (cli_code, cli_out, cli_err) = cli.join().unwrap();
    let page = browser.wait_text("result", "the page's outcome", |t| !t.is_empty());
    let out = hook.join().unwrap();
    let phone_won = out.stdout.contains("From the phone.");
    let cli_won = out.stdout.contains("From the command line.");
    assert!(
        phone_won != cli_won,
        "exactly one decision reached the agent: {out:?}"
    );
    if phone_won {
        assert_ne!(cli_code, 0, "{cli_out}");
        assert!(
            cli_err.contains("already decided") || cli_err.contains("being decided"),
            "the command line is told who won: {cli_err}"
        );
        assert!(cli_err.contains("the phone \"Pixel\""), "{cli_err}");
    } else {
        assert_eq!(cli_code, 0, "{cli_out}{cli_err}");
        assert!(page.starts_with("Refused: "), "{page}");
        assert!(
            page.contains("the command line"),
            "the page is told who won: {page}"
        );
    }
    let lines = plandeck_core::review::decide::audit_log(&s.roots, None)
        .unwrap()
        .into_iter()
        .filter(|d| d.request_id.as_deref() == Some(req2.id.as_str()))
        .count();
    assert_eq!(lines, 1, "one outcome in the log");

    // Approve with a note: the agent gets the plan with the note as "Reviewer notes".
    let (hook, req3) = claude_waits(&s.roots, &s.stdin, &[req.id.clone(), req2.id.clone()]);
    browser.go(link.split('#').next().unwrap());
    browser.wait_text("status", "the third request", |t| t.contains("1 waiting"));
    browser.click(&format!("#queue .card[data-id='{}'] button", req3.id));
    browser.wait_text("plan", "the third plan", |t| t.contains("add pagination"));
    browser.type_into("#feedback", "Keep the cursor opaque.");
    browser.click("#approve-note");
    let out = hook.join().unwrap();
    assert!(out.stdout.contains("\"allow\""), "{out:?}");
    assert!(
        out.stdout.contains("Reviewer notes") && out.stdout.contains("Keep the cursor opaque."),
        "{out:?}"
    );

    // Revoked: the page's next call is refused, saying so.
    let (code, _, err) = plandeck(&home, &["phone", "revoke", "Pixel"]);
    assert_eq!(code, 0, "{err}");
    let page_url = link.split('#').next().unwrap().to_owned();
    browser.go(&page_url);
    let said = browser.wait_text("status", "the refusal", |t| t.starts_with("refused"));
    assert!(said.contains("revoked"), "{said}");
    // Its push subscription went with it.
    let status: Value =
        serde_json::from_str(&plandeck(&home, &["phone", "status", "--json"]).1).unwrap();
    assert_eq!(status["pushDevices"], json!(0), "{status}");
    // The server gone: the page says "unknown", never a decision.
    let (code, _, err) = plandeck(&home, &["phone", "off"]);
    assert_eq!(code, 0, "{err}");
    browser.click("#refresh");
    let said = browser.wait_text("status", "unknown", |t| t.starts_with("unknown"));
    assert!(!said.contains("approved"), "{said}");
}

/// What `curl` gets from `url` trusting the test's authority: the HTTP status, or `None` when
/// no answer came (refused, reset, or timed out).
fn fetch_status(certs: &Path, url: &str) -> Option<String> {
    let out = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "--max-time",
            "5",
        ])
        .arg("--cacert")
        .arg(certs.join("ca.pem"))
        .arg(url)
        .output()
        .unwrap_or_else(|e| panic!("curl is needed by this test (scripts/setup.sh --test): {e}"));
    let code = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && code != "000").then_some(code)
}

/// What `curl` gets for a POST of `{}` to `url` sent as from the page at `origin`: the head and
/// the body.
fn post_from(certs: &Path, url: &str, origin: &str) -> (String, String) {
    let out = Command::new("curl")
        .args(["-s", "-i", "--max-time", "5", "-X", "POST", "-d", "{}"])
        .arg("-H")
        .arg(format!("Origin: {origin}"))
        .arg("--cacert")
        .arg(certs.join("ca.pem"))
        .arg(url)
        .output()
        .unwrap_or_else(|e| panic!("curl is needed by this test (scripts/setup.sh --test): {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.to_owned(), body.to_owned())
}

pub(crate) fn status(home: &Path) -> Value {
    let (code, out, err) = plandeck(home, &["phone", "status", "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// The per-user server's pid, from its lock (once it has written it).
fn daemon_pid(home: &Path) -> u32 {
    let roots = Roots::under_home(home);
    wait_for("the per-user server to start", || {
        std::fs::read_to_string(plandeck_core::serve::daemon::lock_path(&roots))
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
            .filter(|pid| Path::new(&format!("/proc/{pid}")).exists())
    })
}

/// Ends the per-user server this test started (by its pid) however the test ends.
pub(crate) struct EndDaemon<'a>(pub(crate) &'a Path);

impl Drop for EndDaemon<'_> {
    fn drop(&mut self) {
        let _ = plandeck(self.0, &["phone", "off"]);
        let roots = Roots::under_home(self.0);
        if let Some(pid) = std::fs::read_to_string(plandeck_core::serve::daemon::lock_path(&roots))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
    }
}

fn phone_on(home: &Path, certs: &Path, listen: &str) -> Value {
    let (code, out, err) = common::output(plandeck_process(home).args([
        "phone",
        "on",
        "--listen",
        listen,
        "--cert",
        certs.join("server.pem").to_str().unwrap(),
        "--key",
        certs.join("server.key").to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(code, 0, "{out}{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn the_per_user_server_hosts_the_page_takes_on_and_off_without_a_restart_and_stays_while_on() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let certs = home.join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    make_certificates(&certs);
    let _end = EndDaemon(home);

    // The per-user server runs (as the window or a remote client started it), idling out after
    // one second with nobody connected, unless the page is on.
    let (code, out, err) = common::output(plandeck_process(home).args([
        "serve",
        "--daemon-launch",
        "--idle-exit",
        "1",
    ]));
    assert_eq!(code, 0, "{out}{err}");
    let daemon = daemon_pid(home);

    // Turned on: that server serves it, no other process started.
    let port = free_port();
    let on = phone_on(home, &certs, &format!("127.0.0.1:{port}"));
    assert_eq!(on["pid"], json!(daemon), "{on}");
    assert!(
        on["by"]
            .as_str()
            .unwrap()
            .starts_with("plandeck serve --daemon"),
        "{on}"
    );
    let s = status(home);
    assert_eq!(s["pid"], json!(daemon));
    assert!(
        s["by"]
            .as_str()
            .unwrap()
            .starts_with("plandeck serve --daemon"),
        "{s}"
    );
    let (_, said, _) = plandeck(home, &["phone", "status"]);
    assert!(said.contains("served by plandeck serve --daemon"), "{said}");
    assert_eq!(
        fetch_status(&certs, &format!("https://127.0.0.1:{port}/")).as_deref(),
        Some("200")
    );

    // Another address while it runs: the same server moves to it, no restart.
    let port2 = free_port();
    let moved = phone_on(home, &certs, &format!("127.0.0.1:{port2}"));
    assert_eq!(moved["pid"], json!(daemon), "{moved}");
    assert_eq!(
        fetch_status(&certs, &format!("https://127.0.0.1:{port2}/")).as_deref(),
        Some("200")
    );
    // A page of another site calling the API from the phone's browser: refused by the running
    // server before the call is read, with the reason; the page's own origin is read (and this
    // empty call refused as not the page's); neither answer may be framed.
    let api = format!("https://127.0.0.1:{port2}/api/pending");
    let (head, body) = post_from(&certs, &api, "https://evil.example");
    assert!(head.starts_with("HTTP/1.1 403"), "{head}");
    assert!(
        body.contains("\"crossOrigin\"") && body.contains("evil.example"),
        "{body}"
    );
    let (head, body) = post_from(&certs, &api, &format!("https://127.0.0.1:{port2}"));
    assert!(head.starts_with("HTTP/1.1 400"), "{head}{body}");
    for h in [head, post_from(&certs, &api, "null").0] {
        assert!(
            h.contains("X-Frame-Options: DENY") && h.contains("frame-ancestors 'none'"),
            "{h}"
        );
    }
    wait_for("the old address to be let go", || {
        fetch_status(&certs, &format!("https://127.0.0.1:{port}/"))
            .is_none()
            .then_some(())
    });

    // With nobody connected for longer than its idle time, it serves on while the page is on
    // (the window closed: the phone still gets its page).
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        Path::new(&format!("/proc/{daemon}")).exists(),
        "still running"
    );
    assert_eq!(
        fetch_status(&certs, &format!("https://127.0.0.1:{port2}/")).as_deref(),
        Some("200")
    );

    // Off: the page stops at once, and the server, idle, leaves.
    let (code, out, err) = plandeck(home, &["phone", "off", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["running"],
        json!(false)
    );
    assert_eq!(
        fetch_status(&certs, &format!("https://127.0.0.1:{port2}/")),
        None
    );
    assert_eq!(status(home)["running"], json!(false));
    wait_for("the idle server to leave", || {
        (!Path::new(&format!("/proc/{daemon}")).exists()).then_some(())
    });

    // On again with no server running: one is started to serve it.
    let port3 = free_port();
    let on = phone_on(home, &certs, &format!("127.0.0.1:{port3}"));
    assert_ne!(on["pid"], json!(daemon));
    assert!(
        on["by"]
            .as_str()
            .unwrap()
            .starts_with("plandeck serve --daemon"),
        "{on}"
    );
    assert_eq!(
        fetch_status(&certs, &format!("https://127.0.0.1:{port3}/")).as_deref(),
        Some("200")
    );
}

#[test]
fn a_client_that_trickles_bytes_is_cut_at_the_connection_deadline_and_its_slot_freed() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let certs = dir.path().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    make_certificates(&certs);
    let port = free_port();
    let config = plandeck_core::phone::server::PhoneConfig {
        on: true,
        listen: format!("127.0.0.1:{port}"),
        cert: certs.join("server.pem"),
        key: certs.join("server.key"),
        name: None,
        wait_minutes: 15,
    };
    plandeck_core::phone::server::write_config(&roots, &config).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let opts = plandeck_core::phone::server::ServeOptions {
        deadline: Duration::from_secs(2),
        by: "this test".to_owned(),
        stop: stop.clone(),
    };
    let server = {
        let roots = roots.clone();
        std::thread::spawn(move || plandeck_core::phone::server::serve_with(&roots, &opts))
    };
    let url = format!("https://127.0.0.1:{port}/");
    wait_for("the page", || fetch_status(&certs, &url));

    // Every slot taken by a client that sends a TLS record's header, then one byte of it every
    // 300 ms: well within the timeout of each read, never a whole request.
    let done = Arc::new(AtomicBool::new(false));
    let cut = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let slow: Vec<_> = (0..32)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            let (done, cut) = (done.clone(), cut.clone());
            std::thread::spawn(move || {
                let _ = s.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00]);
                while !done.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(300));
                    if s.write_all(&[0]).is_err() {
                        cut.fetch_add(1, Ordering::SeqCst);
                        return;
                    }
                }
            })
        })
        .collect();
    // Still trickling, they are cut at the deadline; the page answers again.
    wait_for("the slow clients to be cut", || {
        (cut.load(Ordering::SeqCst) == 32).then_some(())
    });
    // Each slot is given back as its thread ends, just after its client was cut.
    wait_for("the page to answer again", || {
        fetch_status(&certs, &url).filter(|c| c == "200")
    });
    done.store(true, Ordering::SeqCst);
    for t in slow {
        t.join().unwrap();
    }
    stop.store(true, Ordering::SeqCst);
    server.join().unwrap().unwrap();
}

#[test]
fn a_per_user_server_that_does_not_serve_the_page_still_idles_out() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let certs = home.join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    make_certificates(&certs);
    let roots = Roots::under_home(home);
    let _end = EndDaemon(home);
    // The page on and served by another process (as an older version's server would).
    let port = free_port();
    let config = plandeck_core::phone::server::PhoneConfig {
        on: true,
        listen: format!("127.0.0.1:{port}"),
        cert: certs.join("server.pem"),
        key: certs.join("server.key"),
        name: None,
        wait_minutes: 15,
    };
    plandeck_core::phone::server::write_config(&roots, &config).unwrap();
    let mut other = plandeck_process(home)
        .args(["phone", "serve"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let other_pid = other.id();
    wait_for("the other server to serve", || {
        plandeck_core::phone::server::running(&roots).filter(|s| s.pid == other_pid)
    });
    // A per-user server started meanwhile, with nobody connected: it leaves after its idle time
    // (it does not hold on for a page another process serves).
    let (code, out, err) = common::output(plandeck_process(home).args([
        "serve",
        "--daemon-launch",
        "--idle-exit",
        "1",
    ]));
    assert_eq!(code, 0, "{out}{err}");
    let daemon = daemon_pid(home);
    wait_for("the idle server to leave", || {
        (!Path::new(&format!("/proc/{daemon}")).exists()).then_some(())
    });
    let _ = plandeck(home, &["phone", "off"]);
    let _ = other.wait();
}

#[test]
fn notify_sets_and_removes_the_ntfy_topic_and_refuses_what_is_not_https() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    for bad in [
        "http://ntfy.example/topic",
        "https://user@ntfy.example/topic",
        "https://ntfy.example/a\nb",
    ] {
        let (code, out, err) = plandeck(home, &["phone", "notify", "--ntfy", bad, "--json"]);
        assert_ne!(code, 0, "{bad}: {out}");
        assert!(
            err.contains("refused") || err.contains("https://"),
            "{bad}: {err}"
        );
    }
    let long = format!("https://ntfy.example/{}", "a".repeat(1100));
    let (code, _, err) = plandeck(home, &["phone", "notify", "--ntfy", &long]);
    assert_ne!(code, 0);
    assert!(err.contains("1024"), "{err}");
    let topic = "https://ntfy.example/my-own-long-topic";
    let (code, out, err) = plandeck(home, &["phone", "notify", "--ntfy", topic, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ntfy"], json!(topic));
    assert_eq!(v["perMinute"], json!(12));
    let status: Value =
        serde_json::from_str(&plandeck(home, &["phone", "status", "--json"]).1).unwrap();
    assert_eq!(status["ntfy"], json!(topic));
    assert_eq!(status["pushDevices"], json!(0));
    let (code, out, _) = plandeck(home, &["phone", "notify"]);
    assert_eq!(code, 0);
    assert!(out.contains(topic) && out.contains("no plan text"), "{out}");
    let (code, out, err) = plandeck(home, &["phone", "notify", "--off", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["ntfy"],
        Value::Null
    );
}
