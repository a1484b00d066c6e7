//! Another machine over a real OpenSSH server (issue 24): each test starts its own `sshd` on a
//! free loopback port with its own host key and config (public keys only), logging in as a second
//! Unix user (`plandeck-remote`, created when missing) whose per-test home holds the built
//! `plandeck` and a Claude plan. The client is the real `plandeck-cli` with `--host`, its ssh
//! pointed at a config of the test (`PLANDECK_SSH=ssh -F …`: the test's key, a known_hosts holding
//! the test's host key, `StrictHostKeyChecking yes`). Cases: listing, showing and deciding over
//! `--host` (the decision lands on the remote, never here), a request of a waiting agent on the
//! remote rejected over `--host`, a remote without `plandeck`, a host key that changed, sshd
//! stopped.
//!
//! Needs root (to start sshd and create the user: tests run as root here and in CI) and Debian's
//! `openssh-server` (`scripts/setup.sh --test`); without them the tests fail saying so.

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use plandeck_testkit::home::Home;
use plandeck_testkit::{free_port, wait_for, wait_until};
use serde_json::Value;

use crate::common::{output, plandeck, plandeck_process};

const SSHD: &str = "/usr/sbin/sshd";
pub(crate) const USER: &str = "plandeck-remote";
const CLAUDE_STDIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/claude-code-2.1.328/hook-input/permission-request-exit-plan-mode.json"
);

/// The remote user: its home, uid and gid.
pub(crate) struct RemoteUser {
    pub(crate) home: PathBuf,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
}

pub(crate) fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Root, sshd and the remote user, once per test process.
pub(crate) fn remote_user() -> &'static RemoteUser {
    static USER_ONCE: OnceLock<RemoteUser> = OnceLock::new();
    USER_ONCE.get_or_init(|| {
        assert_eq!(
            std::fs::metadata("/proc/self").unwrap().uid(),
            0,
            "the remote tests start their own sshd and log in as a second user: run them as \
             root (they are, here and in CI)"
        );
        assert!(
            Path::new(SSHD).exists(),
            "{SSHD} is missing: `bash scripts/setup.sh --test` installs openssh-server (the \
             system's sshd left off)"
        );
        let known = || {
            let out = Command::new("id").arg("-u").arg(USER).output().unwrap();
            out.status.success()
        };
        if !known() {
            // Another test process (another checkout's run) may create it at the same time.
            let made = Command::new("useradd")
                .args(["-m", "-s", "/bin/bash", USER])
                .output()
                .unwrap();
            assert!(
                made.status.success() || known(),
                "useradd {USER}: {}",
                String::from_utf8_lossy(&made.stderr)
            );
        }
        // Not locked (a locked account is refused even with a key), and no password either.
        run(Command::new("usermod").args(["-p", "*", USER]));
        let entry = run(Command::new("getent").args(["passwd", USER]));
        let fields: Vec<&str> = entry.trim().split(':').collect();
        // sshd's privilege separation folder (made by its init script, which never ran).
        std::fs::create_dir_all("/run/sshd").unwrap();
        RemoteUser {
            home: PathBuf::from(fields[5]),
            uid: fields[2].parse().unwrap(),
            gid: fields[3].parse().unwrap(),
        }
    })
}

/// A running sshd; stopped, with every session it forked, when dropped.
struct Sshd {
    child: Child,
}

impl Sshd {
    fn stop(&mut self) {
        // Each connection is a child of the listener (in a session of its own): those first.
        for pid in descendants(self.child.id()) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Every process below `root`, deepest last.
fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: the name may hold spaces, so read after its last `)`.
        let after = &stat[stat.rfind(')').unwrap_or(0) + 1..];
        if let Some(ppid) = after.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
            parent_of.push((pid, ppid));
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parent_of.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found
}

/// One test's machines: the local home, the remote user's home for this test, sshd's and ssh's
/// files (keys, configs, known_hosts) in a folder of root's.
pub(crate) struct Machines {
    pub(crate) local: Home,
    pub(crate) remote: PathBuf,
    files: tempfile::TempDir,
    port: u16,
    sshd: Option<Sshd>,
}

impl Drop for Machines {
    fn drop(&mut self) {
        self.sshd.take();
        self.stop_daemons();
        let _ = std::fs::remove_dir_all(&self.remote);
    }
}

impl Machines {
    /// A remote home with a Claude plan, and `plandeck` in its PATH when `installed`.
    pub(crate) fn new(installed: bool) -> Machines {
        let user = remote_user();
        static N: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "t-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        let remote = user.home.join(name);
        let _ = std::fs::remove_dir_all(&remote);
        std::fs::create_dir_all(remote.join(".ssh")).unwrap();
        std::fs::create_dir_all(remote.join(".local/bin")).unwrap();
        std::fs::create_dir_all(remote.join(".claude/plans")).unwrap();
        std::fs::write(
            remote.join(".claude/plans/ship.md"),
            "# Ship it\n\n1. Build the thing\n",
        )
        .unwrap();
        if installed {
            // Copied by a process of its own: a file this process held open for writing would
            // stay open in children other tests fork meanwhile ("text file busy" on exec).
            run(Command::new("cp")
                .arg(env!("CARGO_BIN_EXE_plandeck"))
                .arg(remote.join(".local/bin/plandeck")));
        }
        let files = tempfile::tempdir().unwrap();
        let f = files.path();
        for key in ["host", "client"] {
            keygen(&f.join(key));
        }
        std::fs::copy(f.join("client.pub"), remote.join(".ssh/authorized_keys")).unwrap();
        run(Command::new("chmod").arg("700").arg(&remote));
        run(Command::new("chown")
            .arg("-R")
            .arg(format!("{USER}:"))
            .arg(&remote));
        let port = free_port();
        let r = remote.display();
        std::fs::write(
            f.join("sshd_config"),
            format!(
                "ListenAddress 127.0.0.1\nPort {port}\nHostKey {host}\nPidFile none\nUsePAM no\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\n\
                 PubkeyAuthentication yes\nAuthenticationMethods publickey\nPermitRootLogin no\n\
                 AllowUsers {USER}\nAuthorizedKeysFile {r}/.ssh/authorized_keys\n\
                 SetEnv HOME={r} PATH={r}/.local/bin:/usr/bin:/bin\n",
                host = f.join("host").display(),
            ),
        )
        .unwrap();
        std::fs::write(
            f.join("ssh_config"),
            format!(
                "Host plandeck-test\n  HostName 127.0.0.1\n  Port {port}\n  User {USER}\n  \
                 IdentityFile {key}\n  IdentitiesOnly yes\n  UserKnownHostsFile {known}\n  \
                 GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  \
                 UpdateHostKeys no\n",
                key = f.join("client").display(),
                known = f.join("known_hosts").display(),
            ),
        )
        .unwrap();
        let mut m = Machines {
            local: Home::with_agents(),
            remote,
            files,
            port,
            sshd: None,
        };
        m.know_host_key();
        m
    }

    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.files.path().join(name)
    }

    /// known_hosts holds the server's host key as it is now.
    fn know_host_key(&mut self) {
        let public = std::fs::read_to_string(self.file("host.pub")).unwrap();
        let key: Vec<&str> = public.split_whitespace().take(2).collect();
        std::fs::write(
            self.file("known_hosts"),
            format!("[127.0.0.1]:{} {}\n", self.port, key.join(" ")),
        )
        .unwrap();
    }

    /// Starts sshd and waits until it takes connections.
    pub(crate) fn start_sshd(&mut self) {
        let log = std::fs::File::create(self.file("sshd.log")).unwrap();
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(self.file("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("sshd starts");
        self.sshd = Some(Sshd { child });
        let port = self.port;
        wait_until("sshd to take connections", || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
    }

    pub(crate) fn stop_sshd(&mut self) {
        self.sshd.take();
    }

    pub(crate) fn sshd_log(&self) -> String {
        std::fs::read_to_string(self.file("sshd.log")).unwrap_or_default()
    }

    /// `plandeck-cli <args>` here, its ssh pointed at the test's config.
    pub(crate) fn plandeck(&self, args: &[&str]) -> (i32, String, String) {
        let ssh = format!("ssh -F {}", self.file("ssh_config").display());
        output(
            plandeck_process(self.local.path())
                .args(args)
                .env("PLANDECK_SSH", ssh),
        )
    }

    /// `plandeck hosts add box --ssh plandeck-test` (an alias of the test's ssh config).
    pub(crate) fn add_box(&self) {
        let (code, out, err) = self.plandeck(&["hosts", "add", "box", "--ssh", "plandeck-test"]);
        assert_eq!(code, 0, "{out}{err}");
    }

    /// A command over `--host box` that must succeed; its stdout as JSON.
    fn on_box(&self, args: &[&str]) -> Value {
        let mut all = vec!["--host", "box"];
        all.extend_from_slice(args);
        let (code, out, err) = self.plandeck(&all);
        assert_eq!(code, 0, "{all:?}: {out}{err}\nsshd: {}", self.sshd_log());
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }

    /// The remote's store, as the remote user's Plandeck keeps it.
    pub(crate) fn remote_data(&self) -> PathBuf {
        self.remote.join(".local/share/plandeck")
    }

    /// The pids of the remote user's long-lived servers for this test's store (each names
    /// itself in its lock), those still running.
    fn daemons(&self) -> Vec<u32> {
        let Ok(dir) = std::fs::read_dir(self.remote_data().join("serve")) else {
            return Vec::new();
        };
        dir.flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "lock"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok()?.trim().parse().ok())
            .filter(|pid: &u32| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains("serve\0--daemon"))
            })
            .collect()
    }

    fn stop_daemons(&self) {
        for pid in self.daemons() {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }

    /// The machine `box` and the environment a client here reaches it with.
    fn client(&self) -> (plandeck_core::config::Host, plandeck_core::config::Env) {
        let ssh = format!("ssh -F {}", self.file("ssh_config").display());
        let env = plandeck_core::config::Env::from_pairs([("PLANDECK_SSH", ssh.as_str())]);
        let host = plandeck_core::config::Host {
            name: "box".into(),
            ssh: "plandeck-test".into(),
            forward_agent: false,
        };
        (host, env)
    }

    /// Writes a plan file on the remote (as its user) and waits until the remote's server has
    /// recorded that version: it saw the change.
    fn write_plan(&self, name: &str, text: &str) {
        let path = self.remote.join(".claude/plans").join(name);
        std::fs::write(&path, text).unwrap();
        let user = remote_user();
        std::os::unix::fs::chown(&path, Some(user.uid), Some(user.gid)).unwrap();
        let hash = plandeck_core::review::store::hash(text.as_bytes());
        let version =
            plandeck_core::review::store::version_path(&self.remote_data(), &hash).unwrap();
        wait_until("the remote's server to see the plan", || version.exists());
    }
}

fn keygen(path: &Path) {
    run(Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "plandeck-test", "-f"])
        .arg(path));
}

/// The remote's agent: a transcript with a pending ExitPlanMode call; returns the hook's input.
pub(crate) fn waiting_agent(m: &Machines) -> Value {
    let remote = m.remote.clone();

    let mut input: Value = serde_json::from_slice(&std::fs::read(CLAUDE_STDIN).unwrap()).unwrap();
    let plan = input["tool_input"]["plan"].as_str().unwrap().to_owned();
    let transcript = remote.join(".claude/projects/-w/s.jsonl");
    let plan_file = remote.join(".claude/plans/p.md");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::write(&plan_file, &plan).unwrap();
    let call = serde_json::json!({"type":"assistant","message":{"role":"assistant","content":[
        {"type":"tool_use","id":"toolu_remote","name":"ExitPlanMode",
         "input":{"plan":plan,"planFilePath":plan_file}}]}});
    std::fs::write(
        &transcript,
        format!("{{\"type\":\"user\",\"message\":{{\"content\":\"hi\"}}}}\n{call}\n"),
    )
    .unwrap();
    input["transcript_path"] = serde_json::json!(transcript);
    input["tool_input"]["planFilePath"] = serde_json::json!(plan_file);
    run(Command::new("chown")
        .arg("-R")
        .arg(format!("{USER}:"))
        .arg(&remote));

    input
}

/// The hook, run by the remote's user as its agent would, with `input`; its output when it ends.
pub(crate) fn run_hook(
    m: &Machines,
    input: &Value,
) -> std::thread::JoinHandle<std::process::Output> {
    let user = remote_user();
    let (remote, stdin) = (m.remote.clone(), serde_json::to_vec(input).unwrap());
    let (uid, gid) = (user.uid, user.gid);
    std::thread::spawn(move || {
        use std::io::Write;
        let mut child = Command::new(remote.join(".local/bin/plandeck"))
            .args(["hook", "claude"])
            .env_clear()
            .env("HOME", &remote)
            .env("PATH", "/usr/bin:/bin")
            .uid(uid)
            .gid(gid)
            .current_dir(&remote)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&stdin).unwrap();
        child.wait_with_output().unwrap()
    })
}

#[test]
fn hosts_are_added_checked_listed_and_removed_and_a_subcommand_not_served_is_never_run_here() {
    let home = Home::with_agents();
    let h = home.path();
    // An option smuggled in as the destination is refused before anything is written.
    let (code, _, err) = plandeck(h, &["hosts", "add", "x", "--ssh", "-oProxyCommand=id"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("starts with `-`"), "{err}");
    let (code, _, err) = plandeck(h, &["hosts", "add", "x", "--ssh", "a b"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = plandeck(h, &["hosts", "add", "no good", "--ssh", "lab"]);
    assert_eq!(code, 2, "{err}");
    assert!(!h.join(".config/plandeck/settings.json").exists());

    assert_eq!(
        plandeck(h, &["hosts", "add", "lab", "--ssh", "me@lab"]).0,
        0
    );
    assert_eq!(plandeck(h, &["hosts", "add", "vm", "--ssh", "vm"]).0, 0);
    let (code, _, err) = plandeck(h, &["hosts", "add", "lab", "--ssh", "other"]);
    assert_eq!(code, 2, "{err}");
    let (_, out, _) = plandeck(h, &["hosts", "list", "--json"]);
    let list: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        list,
        serde_json::json!([
            {"name": "lab", "ssh": "me@lab", "forwardAgent": false},
            {"name": "vm", "ssh": "vm", "forwardAgent": false}
        ])
    );
    let (_, out, _) = plandeck(h, &["hosts", "list"]);
    assert!(out.contains("lab   -          me@lab"), "{out}");
    // Issue 33, finding 7: what a shell or ssh reads as more than a name is refused.
    for bad in ["h$(id)", "`id`", "h;id", "h|id", "me@-oProxyCommand=id"] {
        let (code, _, err) = plandeck(h, &["hosts", "add", "y", "--ssh", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
    }

    // What is this machine's own is refused over --host, nothing run (here it would have made
    // a demo workspace).
    let (code, out, err) = plandeck(h, &["--host", "lab", "demo", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let e: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["error"]["kind"], "unsupported", "{out}");
    assert!(
        err.contains("`demo` makes a scratch workspace on this machine; nothing was run"),
        "{err}"
    );
    let (code, _, err) = plandeck(h, &["--host", "nowhere", "plans", "list"]);
    assert_eq!(code, 1);
    assert!(err.contains("no machine named \"nowhere\""), "{err}");

    assert_eq!(plandeck(h, &["hosts", "remove", "lab"]).0, 0);
    let (_, out, _) = plandeck(h, &["hosts", "list", "--json"]);
    assert_eq!(
        out.trim_end(),
        "[\n  {\n    \"name\": \"vm\",\n    \"ssh\": \"vm\",\n    \"forwardAgent\": false\n  }\n]"
    );
    // Issue 33, finding 3: the agent is forwarded only where the person says so, and it shows.
    let (code, out, err) = plandeck(
        h,
        &["hosts", "add", "fwd", "--ssh", "lab", "--forward-agent"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("your ssh agent is forwarded there"), "{out}");
    let (_, out, _) = plandeck(h, &["hosts", "list"]);
    assert!(out.contains("fwd   forwarded  lab"), "{out}");
}

#[test]
fn over_host_the_remotes_plans_are_listed_and_shown_and_a_rejection_lands_on_the_remote() {
    let mut m = Machines::new(true);
    m.start_sshd();
    m.add_box();

    let listing = m.on_box(&["plans", "list", "--json"]);
    let plans = listing.as_array().unwrap();
    assert_eq!(plans.len(), 1, "{listing}");
    assert_eq!(plans[0]["title"], "Ship it");
    let path = plans[0]["path"].as_str().unwrap();
    assert!(path.starts_with(m.remote.to_str().unwrap()), "{path}");
    // The same shape as a local listing of the same plan.
    let here = Home::with_agents();
    std::fs::create_dir_all(here.claude().join("plans")).unwrap();
    std::fs::write(
        here.claude().join("plans/ship.md"),
        "# Ship it\n\n1. Build the thing\n",
    )
    .unwrap();
    let (_, out, _) = plandeck(here.path(), &["plans", "list", "--json"]);
    let local: Value = serde_json::from_str(&out).unwrap();
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&plans[0]), keys(&local[0]));

    let id = plans[0]["id"].as_str().unwrap().to_owned();
    let doc = m.on_box(&["plans", "show", &id, "--json"]);
    assert_eq!(doc["plan"]["title"], "Ship it", "{doc}");
    assert!(doc["source"].as_str().unwrap().contains("Build the thing"));
    let (code, text, err) = m.plandeck(&["--host", "box", "plans", "list"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("Ship it") && text.contains("1 plan"),
        "{text}"
    );

    let outcome = m.on_box(&["reject", &id, "--feedback", "Say which thing.", "--json"]);
    assert_eq!(outcome["route"], "recordedOnly", "{outcome}");
    assert_eq!(outcome["feedback"], "Say which thing.", "{outcome}");
    // Recorded on the remote, by the remote's user; nothing here.
    let log = std::fs::read_to_string(m.remote_data().join("decisions.jsonl")).unwrap();
    let line: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(line["feedback"], "Say which thing.");
    assert_eq!(line["planPath"], path);
    assert_eq!(line["reviewer"], USER);
    // Who decided from where, in the remote's own log line (no agent waited: no gate record).
    assert_eq!(
        line["decidedBy"], "plandeck serve (over SSH from 127.0.0.1)",
        "{line}"
    );
    assert!(!m.local.data().join("decisions.jsonl").exists());
    let listing = m.on_box(&["plans", "list", "--json"]);
    assert_eq!(listing[0]["state"], "rejected", "{listing}");
    // The remote's log, over --host, says who decided from where.
    let (code, text, err) = m.plandeck(&["--host", "box", "log"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("rejected")
            && text.contains("Say which thing.")
            && text.contains("decided through plandeck serve (over SSH from 127.0.0.1)"),
        "{text}"
    );
    let log_json = m.on_box(&["log", "--plan", &id, "--json"]);
    assert_eq!(log_json.as_array().unwrap().len(), 1, "{log_json}");
    assert_eq!(log_json[0]["feedback"], "Say which thing.");

    // Comments, the diff since the decision, and verify, run there.
    let added = m.on_box(&[
        "comment",
        &id,
        "--quote",
        "Build the thing",
        "--text",
        "Which thing?",
        "--json",
    ]);
    assert_eq!(added["quote"], "Build the thing", "{added}");
    let comments = m.on_box(&["comments", &id, "--json"]);
    assert_eq!(comments[0]["text"], "Which thing?", "{comments}");
    let comment_id = comments[0]["id"].as_str().unwrap().to_owned();
    let done = m.on_box(&["comment", "--resolve", &comment_id, "--json"]);
    assert_eq!(done["done"], "resolved", "{done}");
    std::fs::write(
        m.remote.join(".claude/plans/ship.md"),
        "# Ship it\n\n1. Build the thing\n2. Test it\n",
    )
    .unwrap();
    let diff = m.on_box(&["plans", "diff", &id, "--json"]);
    assert!(diff.to_string().contains("Test it"), "{diff}");
    std::fs::write(
        m.remote.join(".claude/plans/ship.md"),
        "# Ship it\n\n1. Build the thing\n",
    )
    .unwrap();

    // Then approved over --host, with the hash of the version read there.
    let hash = doc["contentHash"].as_str().unwrap();
    let outcome = m.on_box(&["approve", &id, "--expect-hash", hash, "--json"]);
    assert_eq!(outcome["route"], "recordedOnly", "{outcome}");
    assert_eq!(outcome["decision"], "approved", "{outcome}");
    assert_eq!(outcome["approvedHash"], hash, "{outcome}");
    let log = std::fs::read_to_string(m.remote_data().join("decisions.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    let listing = m.on_box(&["plans", "list", "--json"]);
    assert_eq!(listing[0]["state"], "approved", "{listing}");
    // A version that is not the one there now is refused there, nothing decided.
    let (code, out, err) = m.plandeck(&[
        "--host",
        "box",
        "reject",
        &id,
        "--feedback",
        "x",
        "--expect-hash",
        &"0".repeat(64),
        "--json",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("\"error\""), "{out}");
    let log = std::fs::read_to_string(m.remote_data().join("decisions.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
}

#[test]
fn a_waiting_agent_on_the_remote_gets_a_rejection_decided_over_host_and_the_remote_names_who() {
    let mut m = Machines::new(true);
    m.start_sshd();
    m.add_box();
    let agent = waiting_agent(&m);

    // A window holding the connection (its server's presence makes the hook wait).
    let ssh = format!("ssh -F {}", m.file("ssh_config").display());
    let env = plandeck_core::config::Env::from_pairs([("PLANDECK_SSH", ssh.as_str())]);
    let host = plandeck_core::config::Host {
        name: "box".into(),
        ssh: "plandeck-test".into(),
        forward_agent: false,
    };
    let window = plandeck_core::remote::Remote::connect(&host, &env).expect("connected");
    let presence = m.remote_data().join("gate/app.json");
    wait_until("the remote server's presence", || presence.exists());

    let hook = run_hook(&m, &agent);
    let requests = m.remote_data().join("gate/requests");
    wait_for("the hook's request on the remote", || {
        std::fs::read_dir(&requests)
            .ok()?
            .flatten()
            .find(|e| e.path().extension().is_some_and(|x| x == "json"))
    });
    let pending = m.on_box(&["pending", "--json"]);
    assert_eq!(pending.as_array().unwrap().len(), 1, "{pending}");
    let id = pending[0]["id"].as_str().unwrap().to_owned();

    let outcome = m.on_box(&["reject", &id, "--feedback", "split step 2", "--json"]);
    assert_eq!(outcome["delivered"], true, "{outcome}");
    let done = hook.join().unwrap();
    let said = String::from_utf8_lossy(&done.stdout);
    assert!(
        said.contains("deny") && said.contains("split step 2"),
        "{said}{}",
        String::from_utf8_lossy(&done.stderr)
    );
    // The remote names who decided, from where; the decision is in its log, not here.
    let roots = plandeck_core::config::Roots::under_home(&m.remote);
    let closed = plandeck_core::gate::request(&roots, &id).unwrap();
    let by = closed.decided_by.unwrap_or_default();
    assert!(
        by.contains("plandeck serve (over SSH from 127.0.0.1)"),
        "{by}"
    );
    let log = std::fs::read_to_string(m.remote_data().join("decisions.jsonl")).unwrap();
    let line: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(line["requestId"], id.as_str(), "{line}");
    assert_eq!(line["decision"], "rejected", "{line}");
    assert!(line["feedback"].as_str().unwrap().contains("split step 2"));
    assert!(!m.local.data().join("decisions.jsonl").exists());
    // The remote's agent session, listed over --host once the remote has read its sessions.
    let sessions = m.on_box(&["sessions", "list", "--json"]);
    let sessions = sessions.as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0]["agent"], "claude", "{sessions:?}");
    drop(window);
}

#[test]
fn a_remote_without_plandeck_is_said_with_how_to_install_it() {
    let mut m = Machines::new(false);
    m.start_sshd();
    m.add_box();
    let (code, out, err) = m.plandeck(&["--host", "box", "plans", "list", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let e: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["error"]["kind"], "unsupported", "{out}");
    assert!(
        err.contains("Plandeck is not installed on box")
            && err.contains("install the plandeck package"),
        "{err}"
    );
}

#[test]
fn a_host_key_that_changed_is_refused_and_said_and_known_hosts_is_left_alone() {
    let mut m = Machines::new(true);
    m.start_sshd();
    m.add_box();
    m.on_box(&["plans", "list", "--json"]);

    // The server gets a new host key (reinstalled, or someone in between).
    m.stop_sshd();
    for f in ["host", "host.pub"] {
        std::fs::remove_file(m.file(f)).unwrap();
    }
    keygen(&m.file("host"));
    m.start_sshd();
    let known = std::fs::read_to_string(m.file("known_hosts")).unwrap();
    let (code, out, err) = m.plandeck(&["--host", "box", "plans", "list", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let e: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["error"]["kind"], "refused", "{out}");
    assert!(err.contains("the host key of box CHANGED"), "{err}");
    assert!(!out.contains("Ship it"));
    assert_eq!(
        std::fs::read_to_string(m.file("known_hosts")).unwrap(),
        known,
        "known_hosts is the person's: never changed"
    );
}

#[test]
fn a_stopped_sshd_is_said_as_unreachable() {
    let mut m = Machines::new(true);
    m.start_sshd();
    m.add_box();
    m.on_box(&["plans", "list", "--json"]);
    m.stop_sshd();
    let (code, out, err) = m.plandeck(&["--host", "box", "plans", "list", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let e: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["error"]["kind"], "io", "{out}");
    assert!(
        err.contains("box is unreachable") && err.contains("Connection refused"),
        "{err}"
    );
}

/// `plandeck-cli --host box <args>` with the remote running `command` instead of `plandeck serve
/// --stdio` (a server of another version, or a hostile one).
fn with_remote_command(m: &Machines, command: &str, args: &[&str]) -> (i32, String, String) {
    let ssh = format!("ssh -F {}", m.file("ssh_config").display());
    let mut all = vec!["--host", "box"];
    all.extend_from_slice(args);
    output(
        plandeck_process(m.local.path())
            .args(&all)
            .env("PLANDECK_SSH", ssh)
            .env("PLANDECK_REMOTE_COMMAND", command),
    )
}

#[test]
fn an_older_plandeck_on_the_remote_is_said_with_which_side_to_update() {
    let mut m = Machines::new(false);
    m.start_sshd();
    m.add_box();
    let older =
        r#"echo '{"hello":{"protocol":0,"version":"0.0.1","instance":"1-a"}}'; cat >/dev/null"#;
    let (code, out, err) = with_remote_command(&m, older, &["plans", "list", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let e: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["error"]["kind"], "unsupported", "{out}");
    assert!(
        err.contains("box speaks Plandeck protocol 0 (plandeck 0.0.1)")
            && err.contains("update it there"),
        "{err}"
    );
}

#[test]
fn hostile_frames_from_the_remote_are_ignored_and_touch_nothing_here() {
    let mut m = Machines::new(false);
    m.start_sshd();
    m.add_box();
    // Junk, an answer to nothing, an event naming a local path, a frame of 1 MiB of garbage,
    // then the answers the listing asked for.
    let hostile = r#"echo '{"hello":{"protocol":1,"version":"6.6.6","instance":"1-a"}}'; read a;
        echo 'not json'; printf '\033]52;c;eA==\007\n'; echo '{"id":77,"result":{"plans":[]}}';
        echo '{"event":"plans:changed","seq":1,"payload":{"paths":["/etc/shadow"]}}';
        head -c 1048576 /dev/zero | tr '\0' x; echo;
        echo '{"id":1,"result":[]}'; read b;
        echo '{"id":2,"result":{"plans":[],"problems":[]}}'; cat >/dev/null"#;
    let before = std::fs::read_dir(m.local.path()).unwrap().count();
    let (code, out, err) = with_remote_command(&m, hostile, &["plans", "list", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.trim(), "[]", "{out}");
    assert!(!out.contains('\u{1b}') && !err.contains('\u{1b}'), "{err}");
    assert!(
        err.contains("4 frame(s) from box were not understood and were ignored")
            && err.contains("an answer to no request (id 77)"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(m.local.path()).unwrap().count(),
        before,
        "nothing written here"
    );
}

#[test]
fn over_host_the_remotes_worktrees_are_listed_kept_and_removed_with_the_token_shown_there() {
    let mut m = Machines::new(true);
    let clean = crate::common::repo_with_clean_worktree(&m.remote);
    run(Command::new("chown")
        .arg("-R")
        .arg(format!("{USER}:"))
        .arg(&m.remote));
    m.start_sshd();
    m.add_box();
    let list = m.on_box(&["worktrees", "list", "--json"]);
    let paths: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&clean.to_str().unwrap()), "{list}");
    let path = clean.to_str().unwrap();
    // A path of the remote is a name there, never read here.
    let preview = m.on_box(&["worktrees", "preview", path, "--json"]);
    assert_eq!(preview["confirmable"], true, "{preview}");
    let token = preview["token"].as_str().unwrap().to_owned();
    let kept = m.on_box(&["worktrees", "keep", path, "--json"]);
    assert_eq!(kept["kept"], path, "{kept}");
    // Removed there with the token of what was shown there.
    let (code, out, err) = m.plandeck(&[
        "--host",
        "box",
        "worktrees",
        "remove",
        path,
        "--expect",
        &"0".repeat(token.len()),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("not what was shown"), "{err}");
    assert!(clean.exists());
    let (code, out, err) = m.plandeck(&["--host", "box", "worktrees", "remove", path]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("Removed {path}.")), "{out}");
    assert!(!clean.exists(), "removed on the remote");
    let (code, _, err) = m.plandeck(&["--host", "box", "worktrees", "keep", path]);
    assert_eq!(code, 1);
    assert!(err.contains("has no worktree"), "{err}");
}

/// The events of `remote` until one names `path` (a plans:changed of it).
fn events_until(remote: &plandeck_core::remote::Remote, path: &Path) -> Vec<(u64, String, Value)> {
    let mut got = Vec::new();
    loop {
        let e = remote
            .next_event(std::time::Duration::from_secs(60))
            .unwrap_or_else(|| panic!("no event naming {} (got {got:?})", path.display()));
        let names = e.payload["paths"]
            .as_array()
            .is_some_and(|p| p.iter().any(|p| p.as_str() == path.to_str()));
        got.push((e.seq, e.name, e.payload));
        if names {
            return got;
        }
    }
}

#[test]
fn events_resume_from_the_cursor_after_sshd_comes_back_none_lost_none_doubled() {
    use plandeck_core::remote::{Remote, RemoteError};
    let mut m = Machines::new(true);
    m.start_sshd();
    let (host, env) = m.client();
    let first = Remote::connect(&host, &env).expect("connected");
    let instance = first.hello().instance.clone();
    first.subscribe(None).unwrap();
    m.write_plan("before.md", "# Before\n");
    let before = events_until(&first, &m.remote.join(".claude/plans/before.md"));
    let cursor = before.last().unwrap().0;

    // sshd stops, with the session it forked (the relay): the client sees the drop.
    m.stop_sshd();
    let e = first.call("list_plans", serde_json::json!({})).unwrap_err();
    assert!(matches!(e, RemoteError::Dropped { .. }), "{e}");
    assert_eq!(
        m.daemons().len(),
        1,
        "the remote's server outlives the connection"
    );

    // Meanwhile, on the remote: two plans change, one after the other.
    m.write_plan("while-down-1.md", "# Down one\n");
    m.write_plan("while-down-2.md", "# Down two\n");

    m.start_sshd();
    let second = Remote::connect(&host, &env).expect("reconnected");
    assert_eq!(second.hello().instance, instance, "the same server");
    let resumed = second.subscribe_from(cursor, &instance).unwrap();
    assert!(!resumed.gap, "{resumed:?}");
    let after = events_until(&second, &m.remote.join(".claude/plans/while-down-2.md"));
    let seqs: Vec<u64> = after.iter().map(|e| e.0).collect();
    let want: Vec<u64> = (cursor + 1..=cursor + seqs.len() as u64).collect();
    assert_eq!(
        seqs, want,
        "every event after the cursor, in order, none twice"
    );
    let named = |name: &str| {
        let path = m.remote.join(".claude/plans").join(name);
        after.iter().position(|(_, event, payload)| {
            event == "plans:changed"
                && payload["paths"]
                    .as_array()
                    .is_some_and(|p| p.iter().any(|p| p.as_str() == path.to_str()))
        })
    };
    let (one, two) = (named("while-down-1.md"), named("while-down-2.md"));
    assert!(one.is_some() && one < two, "{after:?}");
    assert!(
        named("before.md").is_none(),
        "nothing before the cursor again"
    );

    // And a cursor of another server is a gap: read everything again.
    let other = second.subscribe_from(cursor, "another-instance").unwrap();
    assert!(other.gap, "{other:?}");
}

#[test]
fn the_remotes_server_holds_the_gate_presence_only_while_a_client_is_connected() {
    use plandeck_core::remote::Remote;
    let mut m = Machines::new(true);
    m.start_sshd();
    let (host, env) = m.client();
    let roots = plandeck_core::config::Roots::under_home(&m.remote);
    let client = Remote::connect(&host, &env).expect("connected");
    assert!(
        plandeck_core::gate::app_running(&roots),
        "a client can decide: hooks wait"
    );
    drop(client);
    wait_until("the presence to go with the last client", || {
        !plandeck_core::gate::app_running(&roots)
    });
    assert_eq!(m.daemons().len(), 1, "the server stays, without presence");
}

#[test]
fn the_remotes_server_is_private_to_its_user_and_refuses_another_uid() {
    use std::os::unix::fs::PermissionsExt;
    let mut m = Machines::new(true);
    m.start_sshd();
    m.add_box();
    m.on_box(&["plans", "list", "--json"]);
    let dir = m.remote_data().join("serve");
    let meta = std::fs::metadata(&dir).unwrap();
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o700,
        "{}",
        dir.display()
    );
    assert_eq!(meta.uid(), remote_user().uid);
    // Root gets past the folder's mode, not past the peer check: closed before any frame.
    let socket = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "sock"))
        .expect("the server's socket")
        .path();
    let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    use std::io::{Read, Write};
    let _ = stream.write_all(b"{\"relay\":{\"by\":\"root\"}}\n");
    let mut got = Vec::new();
    let _ = stream.read_to_end(&mut got);
    assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
    let log = std::fs::read_to_string(dir.join("plandeck.log")).unwrap();
    assert!(log.contains("refused a connection of uid 0"), "{log}");
    // Issue 33, finding 16: its lock and log are its user's only.
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "log" || x == "lock") {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", path.display());
        }
    }
}

#[test]
fn hosts_install_copies_this_plandeck_to_the_remotes_local_bin_and_then_it_answers() {
    use std::os::unix::fs::PermissionsExt;
    let mut m = Machines::new(false);
    // No ~/.local/bin, and not on the PATH of a non-interactive ssh command (as on Debian, where
    // only a login shell's ~/.profile adds it): the launch looks there itself.
    std::fs::remove_dir_all(m.remote.join(".local/bin")).unwrap();
    let config = std::fs::read_to_string(m.file("sshd_config")).unwrap();
    let path_line = format!("PATH={}/.local/bin:/usr/bin:/bin", m.remote.display());
    assert!(config.contains(&path_line));
    std::fs::write(
        m.file("sshd_config"),
        config.replace(&path_line, "PATH=/usr/bin:/bin"),
    )
    .unwrap();
    m.start_sshd();
    m.add_box();
    let (code, out, err) = m.plandeck(&["--host", "box", "plans", "list", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("run `plandeck hosts install box`"), "{err}");

    let (code, out, err) = m.plandeck(&["hosts", "install", "box"]);
    assert_eq!(code, 0, "{out}{err}\nsshd: {}", m.sshd_log());
    assert!(
        out.contains("Copied") && out.contains("to ~/.local/bin/plandeck on box"),
        "{out}"
    );
    assert!(out.contains("It answers: plandeck "), "{out}");
    let installed = m.remote.join(".local/bin/plandeck");
    let meta = std::fs::metadata(&installed).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o755);
    assert_eq!(meta.uid(), remote_user().uid, "the remote user's own");
    assert_eq!(
        meta.len(),
        std::fs::metadata(env!("CARGO_BIN_EXE_plandeck"))
            .unwrap()
            .len(),
        "{out}"
    );
    assert!(!m.remote.join(".local/bin/.plandeck.tmp").exists());

    let listing = m.on_box(&["plans", "list", "--json"]);
    assert_eq!(listing[0]["title"], "Ship it", "{listing}");
}

/// A Claude Code stand-in on the remote, run by the remote user in a tmux server of its own there
/// (`<remote>/tmux.sock`): its empty input box drawn, every byte typed into its pane recorded into
/// `<remote>/got`; its registry entry (`~/.claude/sessions/<pid>.json`) names the pane. Nothing of
/// it exists here. The server ends when this is dropped.
struct RemoteAgent {
    socket: PathBuf,
    pane: String,
    got: plandeck_testkit::tmux::Recording,
}

impl RemoteAgent {
    fn start(m: &Machines, session_id: &str) -> RemoteAgent {
        plandeck_testkit::require_tool("tmux");
        let socket = m.remote.join("tmux.sock");
        let (got, ready, script) = (
            m.remote.join("got"),
            m.remote.join("ready"),
            m.remote.join("agent.sh"),
        );
        let rule = "─".repeat(40);
        std::fs::write(
            &script,
            format!(
                "printf '\\033[?2004h{rule}\\n❯ \\n{rule}\\n'; stty raw; touch {r}; exec cat > {g}\n",
                r = ready.display(),
                g = got.display()
            ),
        )
        .unwrap();
        run(Command::new("chown")
            .arg("-R")
            .arg(format!("{USER}:"))
            .arg(&m.remote));
        let a = RemoteAgent {
            socket,
            pane: String::new(),
            got: plandeck_testkit::tmux::Recording::at(&got),
        };
        let out = a.tmux(
            m,
            &[
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "120",
                "-y",
                "30",
                "-P",
                "-F",
                "#{pane_id} #{pane_pid}",
                "bash",
                script.to_str().unwrap(),
            ],
        );
        let (pane, pid) = out.trim().split_once(' ').expect("pane id and pid");
        let pid: u32 = pid.parse().unwrap();
        let mut a = a;
        a.pane = pane.to_owned();
        wait_until("the remote agent's pane", || ready.exists());
        wait_until("the remote agent's program", || {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "cat")
        });
        let entry = plandeck_core::agents::claude::registry_file(&m.remote.join(".claude"), pid);
        std::fs::create_dir_all(entry.parent().unwrap()).unwrap();
        std::fs::write(
            &entry,
            serde_json::json!({
                "pid": pid,
                "sessionId": session_id,
                "cwd": m.remote,
                "tmux": format!("agent:@0.{}", a.pane),
                "procStart": plandeck_core::process::start_time(pid).unwrap().to_string(),
            })
            .to_string(),
        )
        .unwrap();
        run(Command::new("chown")
            .arg("-R")
            .arg(format!("{USER}:"))
            .arg(m.remote.join(".claude")));
        a
    }

    /// `tmux -S <socket> args`, run by the remote user.
    fn tmux_as_remote(&self, args: &[&str]) -> std::process::Output {
        let user = remote_user();
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .uid(user.uid)
            .gid(user.gid)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .output()
            .expect("tmux runs (scripts/setup.sh installs it)")
    }

    fn tmux(&self, m: &Machines, args: &[&str]) -> String {
        let out = self.tmux_as_remote(args);
        assert!(
            out.status.success(),
            "tmux {args:?} on the remote: {}\nsshd: {}",
            String::from_utf8_lossy(&out.stderr),
            m.sshd_log()
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for RemoteAgent {
    fn drop(&mut self) {
        let _ = self.tmux_as_remote(&["kill-server"]);
    }
}

/// Session control over `--host` runs there: a message reaches the pane of a session that exists
/// only on the remote, and Esc too; a session the remote does not have is the remote's own
/// refusal; `attach` is refused before connecting: a terminal here cannot attach to that tmux.
#[test]
fn over_host_session_control_runs_on_the_remote_and_attach_is_refused_here() {
    let mut m = Machines::new(true);
    m.start_sshd();
    m.add_box();
    let agent = RemoteAgent::start(&m, "remote-only-session");
    let (code, out, err) = m.plandeck(&[
        "--host",
        "box",
        "send",
        "remote-only-session",
        "next: write the tests",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}{err}\nsshd: {}", m.sshd_log());
    assert!(out.contains(&agent.pane), "{out}");
    wait_until("the message and Enter in the remote's pane", || {
        agent.got.text() == "next: write the tests\r"
    });
    let (code, out, err) = m.plandeck(&["--host", "box", "interrupt", "remote-only-session"]);
    assert_eq!(code, 0, "{out}{err}");
    wait_until("the Esc in the remote's pane", || {
        agent.got.text() == "next: write the tests\r\u{1b}"
    });
    for args in [
        &["send", "nobody", "hello", "--json"][..],
        &["interrupt", "nobody", "--json"],
        &["stop", "nobody", "--json"],
        &["resume", "nobody", "--json"],
    ] {
        let mut all = vec!["--host", "box"];
        all.extend_from_slice(args);
        let (code, out, err) = m.plandeck(&all);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        let e: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(e["error"]["kind"], "notFound", "{args:?}: {out}");
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("no session nobody that Plandeck can steer"),
            "{args:?}: {out}"
        );
    }
    let (code, out, err) = m.plandeck(&["--host", "box", "attach", "nobody", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("`attach` opens a terminal on this machine"),
        "{err}"
    );
}

/// The pids of processes of the remote user whose command line holds `words` (NUL-separated) and
/// whose `HOME` is this test's remote home.
fn remote_processes(m: &Machines, words: &str) -> Vec<u32> {
    let home = format!("HOME={}", m.remote.display());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains(words)
                && environ.split(|b| *b == 0).any(|v| v == home.as_bytes())
        })
        .collect()
}

/// The variables of process `pid`.
fn environ(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/environ"))
        .unwrap_or_default()
        .split(|b| *b == 0)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect()
}

/// An ssh-agent of this test, on a socket of its own; stopped when dropped.
struct Agent {
    socket: PathBuf,
    pid: u32,
}

impl Agent {
    fn start(m: &Machines) -> Agent {
        let socket = m.file("agent.sock");
        let out = run(Command::new("ssh-agent").arg("-a").arg(&socket));
        let pid = out
            .split("SSH_AGENT_PID=")
            .nth(1)
            .and_then(|p| p.split(';').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("ssh-agent said: {out}"));
        // A key in it, as a person's agent holds.
        let status = Command::new("ssh-add")
            .arg(m.file("client"))
            .env("SSH_AUTH_SOCK", &socket)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "ssh-add");
        Agent { socket, pid }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.pid.to_string()).status();
    }
}

/// Issue 33, finding 3: with `ForwardAgent yes` in the person's ssh config and their agent
/// running, the connection Plandeck keeps forwards nothing: neither the relay `plandeck serve
/// --stdio` nor the server it starts (nor what that one starts) holds an `SSH_AUTH_SOCK`. Turned on
/// for the machine (`--forward-agent`), the agent is forwarded.
#[test]
fn ssh_to_a_machine_whose_config_forwards_the_agent_forwards_nothing_unless_turned_on() {
    use plandeck_core::remote::Remote;
    let mut m = Machines::new(true);
    let agent = Agent::start(&m);
    let config = std::fs::read_to_string(m.file("ssh_config")).unwrap();
    std::fs::write(
        m.file("ssh_config"),
        format!(
            "{config}  ForwardAgent yes\n  ForwardX11 yes\n  IdentityAgent {}\n",
            agent.socket.display()
        ),
    )
    .unwrap();
    m.start_sshd();
    let (host, env) = m.client();
    let client = Remote::connect(&host, &env).expect("connected");
    let relays = remote_processes(&m, "serve\0--stdio");
    assert!(!relays.is_empty(), "the relay runs");
    let daemons = m.daemons();
    assert_eq!(daemons.len(), 1, "the server runs");
    for pid in relays.iter().chain(&daemons) {
        let env = environ(*pid);
        assert!(
            !env.iter().any(|v| v.starts_with("SSH_AUTH_SOCK=")),
            "{pid}: {env:?}"
        );
        assert!(
            !env.iter().any(|v| v.starts_with("DISPLAY=")),
            "{pid}: {env:?}"
        );
    }
    drop(client);

    // Turned on for this machine: forwarded (the relay of that connection holds it).
    let forwarding = plandeck_core::config::Host {
        forward_agent: true,
        ..host
    };
    let client = Remote::connect(&forwarding, &env).expect("connected");
    let forwarded = wait_for("the relay of the forwarding connection", || {
        remote_processes(&m, "serve\0--stdio")
            .into_iter()
            .find(|pid| {
                environ(*pid)
                    .iter()
                    .any(|v| v.starts_with("SSH_AUTH_SOCK="))
            })
    });
    assert!(forwarded > 0);
    drop(client);
}

/// Issue 33, finding 12: what the remote's shell prints (its `.bashrc`) is never read as ssh's
/// own verdict: a "host key changed" banner from a dotfile is said as the remote's words, and
/// nobody is told to run `ssh-keygen -R`.
#[test]
fn a_remotes_bashrc_posing_as_a_changed_host_key_is_not_said_as_one() {
    let mut m = Machines::new(true);
    let bashrc = m.remote.join(".bashrc");
    std::fs::write(
        &bashrc,
        "echo '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@' >&2\n\
         echo '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @' >&2\n\
         echo 'Host key verification failed.' >&2\nexit 1\n",
    )
    .unwrap();
    let user = remote_user();
    std::os::unix::fs::chown(&bashrc, Some(user.uid), Some(user.gid)).unwrap();
    m.start_sshd();
    m.add_box();
    let (code, out, err) = m.plandeck(&["--host", "box", "plans", "list", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("REMOTE HOST IDENTIFICATION HAS CHANGED"),
        "the .bashrc ran: {err}"
    );
    assert!(err.contains("box did not start Plandeck"), "{err}");
    assert!(
        !err.contains("the host key of box") && !err.contains("ssh-keygen -R"),
        "{err}"
    );
    let e: Value = serde_json::from_str(&out).unwrap();
    assert_ne!(e["error"]["kind"], "refused", "{out}");
}

/// Issue 33, finding 4: a machine whose sshd froze (it takes the connection and says nothing) is
/// said unreachable within ssh's connect timeout (10 s), not after 30.
#[test]
fn a_frozen_sshd_is_said_unreachable_within_ten_seconds() {
    let mut m = Machines::new(true);
    m.start_sshd();
    m.add_box();
    let sshd = m.sshd.as_ref().unwrap().child.id();
    run(Command::new("kill").args(["-STOP", &sshd.to_string()]));
    let ssh = format!("ssh -F {}", m.file("ssh_config").display());
    let mut child = plandeck_process(m.local.path())
        .args(["--host", "box", "plans", "list", "--json"])
        .env("PLANDECK_SSH", ssh)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Ten seconds promised; twenty allowed for a loaded machine; the old thirty fail.
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            let _ = Command::new("kill")
                .args(["-CONT", &sshd.to_string()])
                .status();
            panic!("still waiting after {:?}", started.elapsed());
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let _ = Command::new("kill")
        .args(["-CONT", &sshd.to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("box is unreachable"), "{err}");
}

/// Issue 33, finding 10: a client that vanished without closing (a laptop asleep, a half-open
/// connection: here its ssh is frozen) is taken as gone once silent for the server's limit (45 s;
/// shorter here), and the gate presence goes with it. A client alive says so with a heartbeat.
#[test]
fn a_client_that_vanished_without_closing_loses_the_presence_once_silent() {
    use plandeck_core::remote::Remote;
    let mut m = Machines::new(true);
    let config = std::fs::read_to_string(m.file("sshd_config")).unwrap();
    std::fs::write(
        m.file("sshd_config"),
        config.replace(
            "SetEnv HOME=",
            "SetEnv PLANDECK_SERVE_SILENCE_MS=2000 HOME=",
        ),
    )
    .unwrap();
    m.start_sshd();
    let (host, env) = m.client();
    let env = plandeck_core::config::Env::from_pairs([
        ("PLANDECK_SSH", env.get("PLANDECK_SSH").unwrap()),
        ("PLANDECK_HEARTBEAT_MS", "300"),
    ]);
    let roots = plandeck_core::config::Roots::under_home(&m.remote);
    let client = Remote::connect(&host, &env).expect("connected");
    assert!(plandeck_core::gate::app_running(&roots));
    // Alive and asking nothing for longer than the limit, it is kept: its heartbeat is heard.
    // (Time has to pass for this; what is asserted after is only that nothing broke.)
    std::thread::sleep(std::time::Duration::from_millis(3500));
    client
        .call("list_plans", serde_json::json!({}))
        .expect("still connected");
    assert!(plandeck_core::gate::app_running(&roots));
    assert!(client.is_open());
    // Its ssh freezes: nothing more reaches the remote, nothing closes there either.
    let config = m.file("ssh_config").display().to_string();
    let ssh: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline);
            cmdline.starts_with("ssh\0") && cmdline.contains(&config)
        })
        .collect();
    assert_eq!(ssh.len(), 1, "{ssh:?}");
    run(Command::new("kill").args(["-STOP", &ssh[0].to_string()]));
    wait_until("the presence to go with the silent client", || {
        !plandeck_core::gate::app_running(&roots)
    });
    let _ = Command::new("kill")
        .args(["-KILL", &ssh[0].to_string()])
        .status();
    drop(client);
}

/// Issue 33, finding 6: `hosts install` copies a `plandeck` beside the running one only when
/// nobody but its owner (or root) can change it; else it copies itself.
#[test]
fn hosts_install_never_copies_a_plandeck_beside_it_that_others_can_change() {
    use std::os::unix::fs::PermissionsExt;
    let mut m = Machines::new(false);
    m.start_sshd();
    m.add_box();
    let bin = tempfile::tempdir().unwrap();
    let cli = bin.path().join("plandeck-cli");
    run(Command::new("cp")
        .arg(env!("CARGO_BIN_EXE_plandeck-cli"))
        .arg(&cli));
    let planted = bin.path().join("plandeck");
    std::fs::write(&planted, "#!/bin/sh\necho planted\n").unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o777)).unwrap();
    let ssh = format!("ssh -F {}", m.file("ssh_config").display());
    let (code, out, err) = output(
        Command::new(&cli)
            .args(["hosts", "install", "box"])
            .env("HOME", m.local.path())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env("PLANDECK_SSH", ssh),
    );
    assert_eq!(code, 0, "{out}{err}\nsshd: {}", m.sshd_log());
    assert!(out.contains(&format!("Copied {}", cli.display())), "{out}");
    let installed = std::fs::metadata(m.remote.join(".local/bin/plandeck")).unwrap();
    assert_eq!(installed.len(), std::fs::metadata(&cli).unwrap().len());
}

/// Issue 33, finding 6: what arrived is checked against what was sent before it takes the place
/// of anything: a copy that arrives changed (here the remote's `cat` keeps only the first KiB) is
/// removed, nothing is installed, and it is said.
#[test]
fn hosts_install_checks_what_arrived_and_installs_nothing_that_differs() {
    let mut m = Machines::new(false);
    let cat = m.remote.join(".local/bin/cat");
    std::fs::write(&cat, "#!/bin/sh\nexec head -c 1024\n").unwrap();
    run(Command::new("chmod").arg("755").arg(&cat));
    let user = remote_user();
    std::os::unix::fs::chown(&cat, Some(user.uid), Some(user.gid)).unwrap();
    m.start_sshd();
    m.add_box();
    let (code, out, err) = m.plandeck(&["hosts", "install", "box"]);
    assert_eq!(code, 1, "{out}{err}\nsshd: {}", m.sshd_log());
    assert!(
        err.contains("what arrived on box is not what was sent") && err.contains("SHA-256"),
        "{err}"
    );
    assert!(!m.remote.join(".local/bin/plandeck").exists());
    assert!(!m.remote.join(".local/bin/.plandeck.tmp").exists());
}

/// The remote's record of its hosted ACP session `id`, as its host last wrote it.
fn remote_acp_record(m: &Machines, id: &str) -> Value {
    let path = m
        .remote_data()
        .join("acp/sessions")
        .join(format!("{id}.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap_or_default()).unwrap_or(Value::Null)
}

/// Issue 36, item 2: an ACP session hosted by the remote's own server (started there, by its
/// user) is steered from here with `--host`, through the same calls the window makes for another
/// machine's ACP sessions: Send reaches the agent as its prompt, word for word; a second Send
/// while the turn runs is the remote's refusal; Interrupt is its `session/cancel`; Resume of a
/// session that still runs is refused; Stop lists what it ends (the agent first, listed by the
/// remote) and ends nothing without `--yes`, then ends it; Resume of the stopped session has it
/// hosted again (`session/load`) and steered again; a name that cannot be a session is refused
/// before anything is sent; a machine that cannot be reached is said so.
#[test]
fn over_host_an_acp_session_hosted_on_the_remote_is_sent_interrupted_stopped_and_resumed() {
    let mut m = Machines::new(true);
    let user = remote_user();
    let bin = m.remote.join("bin");
    let log = m.remote.join("agent-read.jsonl");
    let repo = m.remote.join("repo");
    plandeck_testkit::verify::git_init(&repo, &[("README.md", "# r\n")], 1_700_000_000);
    // An agent that holds every turn until it is cancelled (`silent`).
    crate::agents::scripted_as(&bin, "claude-agent-acp", "silent", &log);
    run(Command::new("chown")
        .arg("-R")
        .arg(format!("{USER}:"))
        .arg(&m.remote));
    // Started on the remote by its user: its server (started by this) hosts the agent.
    let start = Command::new(m.remote.join(".local/bin/plandeck"))
        .args(["start", "--agent", "claude-acp", "--repo"])
        .arg(&repo)
        .arg("--json")
        .env_clear()
        .env("HOME", &m.remote)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .uid(user.uid)
        .gid(user.gid)
        .current_dir(&m.remote)
        .output()
        .unwrap();
    assert!(
        start.status.success(),
        "{}{}",
        String::from_utf8_lossy(&start.stdout),
        String::from_utf8_lossy(&start.stderr)
    );
    let started: Value = serde_json::from_slice(&start.stdout).unwrap();
    let id = started["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("acps-"), "{started}");
    let pid = started["agentPid"].as_u64().expect("the agent's pid");
    m.start_sshd();
    m.add_box();
    let state = |want: &str| {
        wait_until(&format!("the remote's session {want}"), || {
            remote_acp_record(&m, &id)["state"] == want
        })
    };
    state("idle");

    // Send: the agent's prompt, word for word.
    let text = "Write the tests -- then \"hold\" on; $HOME stays `data`";
    let (code, out, err) = m.plandeck(&["--host", "box", "send", &id, text, "--json"]);
    assert_eq!(code, 0, "{out}{err}\nsshd: {}", m.sshd_log());
    assert!(out.contains("session/prompt"), "{out}");
    wait_until("the remote's agent got the prompt", || {
        read_agent_log(&log)
            .iter()
            .any(|f| f["method"] == "session/prompt" && f["params"]["prompt"][0]["text"] == text)
    });
    state("working");
    // A turn runs: a second Send is the remote's refusal, said with the machine's name.
    let (code, out, _) = m.plandeck(&["--host", "box", "send", &id, "more", "--json"]);
    assert_eq!(code, 1, "{out}");
    let e: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["error"]["kind"], "conflict", "{out}");
    let said = e["error"]["message"].as_str().unwrap();
    assert!(
        said.starts_with("box: ") && said.contains("is running"),
        "{out}"
    );
    assert!(
        !read_agent_log(&log)
            .iter()
            .any(|f| f["params"]["prompt"][0]["text"] == "more"),
        "a refused message never reaches the agent"
    );
    // Interrupt: the agent's session/cancel; the turn ends.
    let (code, out, err) = m.plandeck(&["--host", "box", "interrupt", &id]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("session/cancel"), "{out}");
    wait_until("the remote's agent was asked to cancel", || {
        read_agent_log(&log)
            .iter()
            .any(|f| f["method"] == "session/cancel")
    });
    state("idle");
    // Resume is for a session whose host ended.
    let (code, out, _) = m.plandeck(&["--host", "box", "resume", &id, "--json"]);
    assert_eq!(code, 1, "{out}");
    let e: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["error"]["kind"], "conflict", "{out}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("still runs"),
        "{out}"
    );
    // Names that cannot be a session, or one the remote does not have: refused, nothing sent.
    for (args, kind, words) in [
        (
            &["send", "acps-../../x", "hi", "--json"][..],
            "notFound",
            "cannot be a hosted ACP session of box",
        ),
        (
            &["stop", "acps-nope", "--json"],
            "notFound",
            "box: no hosted ACP session acps-nope",
        ),
        (
            &["interrupt", "acps-nope", "--json"],
            "notFound",
            "box: no hosted ACP session acps-nope",
        ),
    ] {
        let mut all = vec!["--host", "box"];
        all.extend_from_slice(args);
        let (code, out, _) = m.plandeck(&all);
        assert_eq!(code, 1, "{args:?}: {out}");
        let e: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(e["error"]["kind"], kind, "{args:?}: {out}");
        assert!(
            e["error"]["message"].as_str().unwrap().contains(words),
            "{args:?}: {out}"
        );
    }

    // Stop: listed first (the agent first, by the remote), nothing ended without --yes.
    let (code, out, err) = m.plandeck(&["--host", "box", "stop", &id]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("would end "), "{out}");
    let first = out.lines().nth(1).unwrap_or_default();
    assert!(
        first.starts_with(&format!("  {pid} ")) && first.contains("acp-scripted.mjs"),
        "{out}"
    );
    assert!(out.contains("--yes"), "{out}");
    assert_eq!(remote_acp_record(&m, &id)["state"], "idle");
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    let (code, out, err) = m.plandeck(&["--host", "box", "stop", &id, "--yes", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Stopping"), "{out}");
    state("ended");
    wait_until("the remote's agent is gone", || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
            s.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
    });
    // An ended session: nothing to stop, nothing to send to.
    for args in [
        &["stop", &id, "--json"][..],
        &["send", &id, "hello", "--json"],
    ] {
        let mut all = vec!["--host", "box"];
        all.extend_from_slice(args);
        let (code, out, _) = m.plandeck(&all);
        assert_eq!(code, 1, "{args:?}: {out}");
        let e: Value = serde_json::from_str(&out).unwrap();
        let said = e["error"]["message"].as_str().unwrap();
        assert!(
            said.starts_with("box: ") && said.contains("has ended"),
            "{args:?}: {out}"
        );
    }

    // Resume: the remote's server hosts it again, its agent loading the session; it is steered
    // again from here.
    let (code, out, err) = m.plandeck(&["--host", "box", "resume", &id, "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let resumed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(resumed["id"], id.as_str(), "{out}");
    assert_eq!(resumed["state"], "idle", "{out}");
    assert!(
        read_agent_log(&log)
            .iter()
            .any(|f| f["method"] == "session/load"),
        "session/load sent"
    );
    let (code, out, err) = m.plandeck(&["--host", "box", "resume", &id]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("still runs"), "{err}");
    let (code, out, err) = m.plandeck(&["--host", "box", "send", &id, "after resume"]);
    assert_eq!(code, 0, "{out}{err}");
    wait_until("the resumed agent got the message", || {
        read_agent_log(&log).iter().any(|f| {
            f["method"] == "session/prompt" && f["params"]["prompt"][0]["text"] == "after resume"
        })
    });
    let (code, out, err) = m.plandeck(&["--host", "box", "stop", &id, "--yes"]);
    assert_eq!(code, 0, "{out}{err}");
    state("ended");

    // A machine that cannot be reached: said so, nothing sent.
    m.stop_sshd();
    let (code, out, err) = m.plandeck(&["--host", "box", "interrupt", &id, "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("box is unreachable"), "{err}");
}

/// What the scripted agent read, one JSON frame a line.
fn read_agent_log(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
