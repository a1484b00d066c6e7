//! Another machine over loopback OpenSSH (issue 24), with a real `sshd` started here (root, its own
//! host key and config, public keys only) and the release `plandeck` beside this binary as the
//! remote's:
//! - the heavy home's plans listed through `plandeck --host` (a fresh remote server: ssh, the
//!   daemon started, its first read of the home) against the same listing run here plus an ssh
//!   login alone (limit 1.5×), and again over an open connection, as the window holds it, against
//!   the same call to a server here over a pipe (limit 1.5×);
//! - a plan written on the remote to its `plans:changed` event at the client, p95 (< 300 ms);
//! - an idle connected remote over 30 s: CPU of the ssh client and the remote's server (< 1% of a
//!   core) and bytes through the ssh client beyond those of a plain idle ssh with the same options
//!   (ssh's keep-alives) over the same 30 s and the client's heartbeat (none).
//!
//! Needs root and Debian's `openssh-server` (`/usr/sbin/sshd`). HEAVY_HOME names a heavy home
//! (benches/run.sh makes one), else one is generated at a quarter scale in a temporary folder.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use plandeck_benches::heavy_home::{ensure, HeavyHomeSpec};
use plandeck_benches::{median, ms, percentile, report, Limit};
use plandeck_core::config::{Env, Host};
use plandeck_core::remote::{ssh_command_for, Remote, HEARTBEAT};

const RUNS: usize = 5;
const EVENTS: usize = 30;
const IDLE: Duration = Duration::from_secs(30);

fn beside(name: &str) -> PathBuf {
    std::env::current_exe()
        .expect("own path")
        .with_file_name(name)
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

struct Sshd(Child);

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The long-lived servers of the store `data` (each names itself in its lock), stopped.
fn stop_daemons(data: &Path) {
    let Ok(dir) = std::fs::read_dir(data.join("plandeck/serve")) else {
        return;
    };
    for e in dir.flatten() {
        if e.path().extension().is_some_and(|x| x == "lock") {
            if let Ok(pid) = std::fs::read_to_string(e.path()) {
                let pid = pid.trim();
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                if String::from_utf8_lossy(&cmdline).contains("--daemon") {
                    let _ = Command::new("kill").args(["-KILL", pid]).status();
                }
            }
        }
    }
}

fn daemon_pid(data: &Path) -> Option<u32> {
    let dir = std::fs::read_dir(data.join("plandeck/serve")).ok()?;
    dir.flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "lock"))
        .find_map(|e| std::fs::read_to_string(e.path()).ok()?.trim().parse().ok())
}

/// utime + stime of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = &stat[stat.rfind(')').map_or(0, |i| i + 1)..];
    let f: Vec<&str> = after.split_whitespace().collect();
    // After `)`: state is field 3, utime 14, stime 15 (1-based over the whole line).
    let at = |i: usize| {
        f.get(i - 3)
            .and_then(|x| x.parse::<u64>().ok())
            .unwrap_or(0)
    };
    at(14) + at(15)
}

/// Bytes `pid` read and wrote (its pipes and its socket).
fn io_bytes(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    io.lines()
        .filter(|l| l.starts_with("rchar:") || l.starts_with("wchar:"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum()
}

/// This process's `ssh` children.
fn ssh_children() -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let comm_is_ssh = stat.contains("(ssh)");
        let after = &stat[stat.rfind(')').map_or(0, |i| i + 1)..];
        let ppid = after
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok());
        if comm_is_ssh && ppid == Some(me) {
            found.push(pid);
        }
    }
    found
}

/// The bytes a process moved, sampled, grouped into bursts (apart by more than 200 ms).
struct Bursts {
    last: u64,
    last_change: Option<Instant>,
    bursts: Vec<u64>,
}

impl Bursts {
    fn new(bytes: u64) -> Self {
        Self {
            last: bytes,
            last_change: None,
            bursts: Vec::new(),
        }
    }

    fn see(&mut self, now: u64) {
        if now == self.last {
            return;
        }
        if self
            .last_change
            .is_none_or(|t| t.elapsed() > Duration::from_millis(200))
        {
            self.bursts.push(0);
        }
        *self.bursts.last_mut().expect("a burst") += now - self.last;
        self.last = now;
        self.last_change = Some(Instant::now());
    }
}

/// A plain ssh to `host` with the options of the connection's (`ssh_command_for`), running
/// `cat` into /dev/null there: idle, what ssh's own keep-alives move.
struct IdleSsh {
    child: Child,
    stdin: ChildStdin,
    _stdout: BufReader<ChildStdout>,
}

impl IdleSsh {
    /// Started and logged in (its remote command said so).
    fn start(host: &Host, env: &Env) -> Self {
        let mut child = ssh_command_for(host, env, "echo ready && exec cat >/dev/null")
            .expect("an ssh command")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("ssh runs");
        let stdin = child.stdin.take().expect("its input");
        let mut stdout = BufReader::new(child.stdout.take().expect("its output"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("ssh answers");
        assert_eq!(line.trim(), "ready", "the plain ssh logged in");
        Self {
            child,
            stdin,
            _stdout: stdout,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What one empty line moves through it (the fewest of two, each written just after one of
    /// ssh's keep-alives, so that none falls in the half second it is counted over).
    fn one_line_bytes(&mut self) -> u64 {
        (0..2)
            .map(|_| {
                let (before, deadline) = (io_bytes(self.pid()), Instant::now() + IDLE);
                while io_bytes(self.pid()) == before && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
                std::thread::sleep(Duration::from_millis(200));
                let before = io_bytes(self.pid());
                self.stdin.write_all(b"\n").expect("written");
                self.stdin.flush().expect("written");
                std::thread::sleep(Duration::from_millis(500));
                io_bytes(self.pid()) - before
            })
            .min()
            .expect("two")
    }
}

impl Drop for IdleSsh {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn main() {
    benchmarks();
    plandeck_benches::finish();
}

fn benchmarks() {
    assert!(
        Path::new("/usr/sbin/sshd").exists(),
        "bench_remote needs openssh-server"
    );
    let (plandeck, cli) = (beside("plandeck"), beside("plandeck-cli"));
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let t = tmp.path();
    let heavy = match std::env::var_os("HEAVY_HOME") {
        Some(h) => PathBuf::from(h),
        None => {
            let dir = t.join("heavy");
            ensure(&dir, &HeavyHomeSpec::at_scale(0.25)).expect("a heavy home");
            dir
        }
    };

    // sshd on a free loopback port, root's login by key only, `plandeck` on the PATH.
    for key in ["host", "client"] {
        run(Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-f"])
            .arg(t.join(key)));
    }
    std::fs::copy(t.join("client.pub"), t.join("authorized_keys")).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let bin_dir = plandeck.parent().unwrap().display().to_string();
    std::fs::create_dir_all("/run/sshd").unwrap();
    std::fs::write(
        t.join("sshd_config"),
        format!(
            "ListenAddress 127.0.0.1\nPort {port}\nHostKey {host}\nPidFile none\nUsePAM no\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nStrictModes no\n\
             PermitRootLogin prohibit-password\nAllowUsers root\nAuthorizedKeysFile {keys}\n\
             SetEnv PATH={bin_dir}:/usr/bin:/bin\n",
            host = t.join("host").display(),
            keys = t.join("authorized_keys").display(),
        ),
    )
    .unwrap();
    let public = std::fs::read_to_string(t.join("host.pub")).unwrap();
    let key: Vec<&str> = public.split_whitespace().take(2).collect();
    std::fs::write(
        t.join("known_hosts"),
        format!("[127.0.0.1]:{port} {}\n", key.join(" ")),
    )
    .unwrap();
    std::fs::write(
        t.join("ssh_config"),
        format!(
            "Host bench-box\n  HostName 127.0.0.1\n  Port {port}\n  User root\n  IdentityFile {key}\n  \
             IdentitiesOnly yes\n  UserKnownHostsFile {known}\n  GlobalKnownHostsFile /dev/null\n  \
             StrictHostKeyChecking yes\n",
            key = t.join("client").display(),
            known = t.join("known_hosts").display(),
        ),
    )
    .unwrap();
    let _sshd = Sshd(
        Command::new("/usr/sbin/sshd")
            .args(["-D", "-e", "-f"])
            .arg(t.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sshd starts"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "sshd did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ssh = format!("ssh -F {}", t.join("ssh_config").display());
    let client_home = t.join("client-home");
    std::fs::create_dir_all(&client_home).unwrap();
    run(Command::new(&cli)
        .args(["hosts", "add", "box", "--ssh", "bench-box"])
        .env("HOME", &client_home));

    // (a) The heavy home's plans: through --host from a fresh server there, against here.
    let remote_data = t.join("remote-data");
    let remote_command = |home: &Path, data: &Path| {
        format!(
            "env HOME={} XDG_DATA_HOME={} plandeck serve --stdio",
            home.display(),
            data.display()
        )
    };
    let (mut here, mut there, mut warm) = (Vec::new(), Vec::new(), Vec::new());
    let mut plans = 0;
    let mut rows = (0, 0);
    for i in 0..RUNS {
        let local_data = t.join(format!("local-data-{i}"));
        let start = Instant::now();
        let out = run(Command::new(&cli)
            .args(["plans", "list", "--json"])
            .env("HOME", &heavy)
            .env("XDG_DATA_HOME", &local_data)
            .env_remove("XDG_CONFIG_HOME"));
        here.push(start.elapsed());
        let local: serde_json::Value = serde_json::from_str(&out).expect("a listing");

        stop_daemons(&remote_data);
        let _ = std::fs::remove_dir_all(&remote_data);
        let over = |times: &mut Vec<Duration>| {
            let start = Instant::now();
            let out = run(Command::new(&cli)
                .args(["--host", "box", "plans", "list", "--json"])
                .env("HOME", &client_home)
                .env_remove("XDG_DATA_HOME")
                .env_remove("XDG_CONFIG_HOME")
                .env("PLANDECK_SSH", &ssh)
                .env(
                    "PLANDECK_REMOTE_COMMAND",
                    remote_command(&heavy, &remote_data),
                ));
            times.push(start.elapsed());
            serde_json::from_str::<serde_json::Value>(&out).expect("a listing")
        };
        let remote = over(&mut there);
        over(&mut warm);
        // The plan files, the same there (plans only the transcripts hold are told apart by
        // the window's filter there and the command line's here: counted as notes).
        let files = |v: &serde_json::Value| {
            v.as_array()
                .map_or(0, |a| a.iter().filter(|p| p["source"] == "file").count())
        };
        assert_eq!(files(&local), files(&remote), "the same plan files there");
        plans = files(&remote);
        let count = |v: &serde_json::Value| v.as_array().map_or(0, Vec::len);
        rows = (count(&local), count(&remote));
    }
    stop_daemons(&remote_data);
    // What ssh alone costs: a login that runs `true` there.
    let mut bare = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        run(Command::new("ssh")
            .args(["-F"])
            .arg(t.join("ssh_config"))
            .args(["-T", "-o", "BatchMode=yes", "bench-box", "true"]));
        bare.push(start.elapsed());
    }
    // The login itself is ssh's (what `ssh box true` takes): the listing there is held to 1.5x of
    // the same listing here plus that login.
    report(
        "remote_plans_list_heavy_home",
        ms(median(&there)),
        "<= 1.5x (the same listing here + an ssh login alone)",
        Some((
            "plandeck-cli plans list --json here, same home, fresh store, + ssh box true",
            ms(median(&here)) + ms(median(&bare)),
        )),
        Limit::ratio(1.5),
        serde_json::json!({
            "what": "plandeck-cli --host box plans list --json over loopback ssh, a fresh server there (daemon started, store empty), median",
            "runs": RUNS,
            "plan_files": plans,
            "rows_here": rows.0,
            "rows_there": rows.1,
            "runs_ms": there.iter().map(|d| (ms(*d) * 10.0).round() / 10.0).collect::<Vec<_>>(),
            "here_runs_ms": here.iter().map(|d| (ms(*d) * 10.0).round() / 10.0).collect::<Vec<_>>(),
            "warm_ms": (ms(median(&warm)) * 10.0).round() / 10.0,
            "ssh_true_ms": (ms(median(&bare)) * 10.0).round() / 10.0,
        }),
    );

    // (a2) The window holds its connection: the heavy home's plans asked again over it, against
    // the same server run here over a pipe (no ssh), both past their first read.
    let host = Host {
        name: "box".into(),
        ssh: "bench-box".into(),
        forward_agent: false,
    };
    let over_ssh = Remote::connect(
        &host,
        &Env::from_pairs([
            ("PLANDECK_SSH", ssh.as_str()),
            (
                "PLANDECK_REMOTE_COMMAND",
                remote_command(&heavy, &remote_data).as_str(),
            ),
        ]),
    )
    .expect("connected");
    let local_pipe_data = t.join("pipe-data");
    let over_pipe = Remote::start(
        &host,
        Command::new(&plandeck)
            .args(["serve", "--stdio", "--no-daemon"])
            .env("HOME", &heavy)
            .env("XDG_DATA_HOME", &local_pipe_data)
            .env_remove("XDG_CONFIG_HOME"),
    )
    .expect("a server here");
    let timed = |remote: &Remote| {
        remote
            .call("list_plans", serde_json::json!({}))
            .expect("listed");
        let mut times = Vec::new();
        for _ in 0..RUNS {
            let start = Instant::now();
            remote
                .call("list_plans", serde_json::json!({}))
                .expect("listed");
            times.push(start.elapsed());
        }
        times
    };
    let (open, piped) = (timed(&over_ssh), timed(&over_pipe));
    report(
        "remote_plans_list_heavy_home_open_connection",
        ms(median(&open)),
        "<= 1.5x the same call to a server here",
        Some((
            "list_plans to plandeck serve --stdio --no-daemon here over a pipe, same home, after its first",
            ms(median(&piped)),
        )),
        Limit::ratio(1.5),
        serde_json::json!({
            "what": "list_plans over the window's open ssh connection to the server there, after its first, median",
            "runs": RUNS,
        }),
    );
    drop((over_ssh, over_pipe));
    stop_daemons(&remote_data);

    // (b) A plan written there, to its event here.
    let small = t.join("small-home");
    std::fs::create_dir_all(small.join(".claude/plans")).unwrap();
    std::fs::write(small.join(".claude/plans/a.md"), "# A\n").unwrap();
    let small_data = t.join("small-data");
    let env = Env::from_pairs([
        ("PLANDECK_SSH", ssh.as_str()),
        (
            "PLANDECK_REMOTE_COMMAND",
            remote_command(&small, &small_data).as_str(),
        ),
    ]);
    let host = Host {
        name: "box".into(),
        ssh: "bench-box".into(),
        forward_agent: false,
    };
    let remote = Remote::connect(&host, &env).expect("connected");
    remote.subscribe(None).expect("subscribed");
    // Its first reads done (their events drained).
    while remote.next_event(Duration::from_millis(1500)).is_some() {}
    let mut latencies = Vec::new();
    for i in 0..EVENTS {
        let path = small.join(format!(".claude/plans/event-{i}.md"));
        let start = Instant::now();
        std::fs::write(&path, format!("# Event {i}\n")).unwrap();
        loop {
            let e = remote
                .next_event(Duration::from_secs(30))
                .expect("the event arrives");
            if e.name == "plans:changed"
                && e.payload["paths"]
                    .as_array()
                    .is_some_and(|p| p.iter().any(|p| p.as_str() == path.to_str()))
            {
                break;
            }
        }
        latencies.push(start.elapsed());
    }
    report(
        "remote_event_to_client_p95",
        ms(percentile(&latencies, 95.0)),
        "p95 < 300 ms",
        None,
        Limit::max(300.0),
        serde_json::json!({
            "figure": "p95",
            "p50_ms": (ms(median(&latencies)) * 10.0).round() / 10.0,
            "n": EVENTS,
            "what": "a plan file written on the remote until its plans:changed event is read by the client (Remote::next_event), loopback ssh",
        }),
    );

    // (c) Idle, connected and subscribed: CPU of the ssh client and the server there, bytes
    // through the ssh client against those of a plain ssh to the same machine with the same
    // options (ssh's keep-alives: ServerAliveInterval), doing nothing, over the same 30 s.
    while remote.next_event(Duration::from_millis(1500)).is_some() {}
    let ssh_pids = ssh_children();
    let mut bare_ssh = IdleSsh::start(&host, &env);
    let ssh_pids: Vec<u32> = ssh_pids
        .into_iter()
        .filter(|p| *p != bare_ssh.pid())
        .collect();
    let daemon = daemon_pid(&small_data).expect("the server there");
    let pids: Vec<u32> = ssh_pids.iter().copied().chain([daemon]).collect();
    let ours_now = || ssh_pids.iter().map(|p| io_bytes(*p)).sum::<u64>();
    let ticks0: u64 = pids.iter().map(|p| cpu_ticks(*p)).sum();
    let (bytes0, bare0) = (ours_now(), io_bytes(bare_ssh.pid()));
    // Both sampled every 10 ms and grouped into bursts (apart by more than 200 ms), for the notes.
    let (mut ours, mut bare) = (Bursts::new(bytes0), Bursts::new(bare0));
    let start = Instant::now();
    while start.elapsed() < IDLE {
        std::thread::sleep(Duration::from_millis(10));
        ours.see(ours_now());
        bare.see(io_bytes(bare_ssh.pid()));
    }
    let wall = start.elapsed();
    let ticks1: u64 = pids.iter().map(|p| cpu_ticks(*p)).sum();
    let (ours_bytes, bare_bytes) = (ours.last - bytes0, bare.last - bare0);
    // The client's heartbeat (an empty line every 15 s while it sends nothing else): what one
    // empty line costs through the plain ssh, times the heartbeats the window can hold.
    let heartbeat = bare_ssh.one_line_bytes();
    let heartbeats = IDLE.as_secs().div_ceil(HEARTBEAT.as_secs());
    let allowed = bare_bytes + heartbeats * heartbeat;
    let beyond = ours_bytes.saturating_sub(allowed);
    drop(bare_ssh);
    // Clock ticks are 1/100 s on Linux.
    let cpu = (ticks1 - ticks0) as f64 * 10.0;
    let percent = cpu / ms(wall) * 100.0;
    report(
        "remote_idle_cpu",
        percent,
        "< 1% of one core (ssh client + the server there)",
        None,
        Limit::max(1.0),
        serde_json::json!({
            "unit": "% of one core",
            "cpu_ms": cpu,
            "wall_ms": ms(wall).round(),
            "processes": pids.len(),
        }),
    );
    report(
        "remote_idle_bytes",
        beyond as f64,
        "no bytes beyond an idle ssh with the same keep-alives (same options, same 30 s) and the client's heartbeat (an empty line every 15 s)",
        Some((
            "a plain ssh, same options, `cat` there, idle, same 30 s + the heartbeats' bytes",
            allowed as f64,
        )),
        Limit::max(0.0),
        serde_json::json!({
            "unit": "bytes",
            "what": "bytes the ssh client read and wrote (its pipes and its socket) while idle, beyond the plain ssh's and the heartbeats'",
            "all_bytes": ours_bytes,
            "plain_ssh_bytes": bare_bytes,
            "heartbeat_bytes": heartbeat,
            "heartbeats": heartbeats,
            "ours_minus_plain_ssh": ours_bytes as i64 - bare_bytes as i64,
            "bursts": ours.bursts,
            "plain_ssh_bursts": bare.bursts,
            "wall_ms": ms(wall).round(),
        }),
    );
    drop(remote);
    stop_daemons(&small_data);
}
