//! The index of every session: a cold open that reads heads and tails in parallel, then updates
//! from the paths a file watcher reports, reading only appended bytes.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use time::OffsetDateTime;

use super::state::{self, Facts, Registry, SessionState};
use super::transcript::{
    elide_long_strings, read_head, with_tail_buffers, Follower, LineSplitter, Progress, ELIDE_KEEP,
    ELIDE_LINE, TAIL_WINDOWS,
};
use super::{claude, codex, gemini, SessionSummary, TaskProgress, WorktreeHint};
use crate::agents::{self, Agent};
use crate::config::Roots;
use crate::stamped::{check_before, FileStamp, Resume};

/// Head windows tried for the cwd and first prompt.
const HEAD_WINDOWS: [u64; 3] = [8 << 10, 64 << 10, 512 << 10];
/// How deep discovery walks below a root, so a symlink loop ends.
const MAX_DEPTH: usize = 5;

#[derive(Debug)]
struct Entry {
    agent: Agent,
    key: String,
    follower: Follower,
    facts: Facts,
    subagents: Vec<Follower>,
    deleted: bool,
    tasks: Option<TaskProgress>,
    plan: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq)]
struct Live {
    file: claude::RegistryFile,
    alive: bool,
}

/// What [`SessionIndex::open`] did with each transcript, against the persistent index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenStats {
    /// Transcripts found.
    pub files: u32,
    /// Taken from the persistent index unread (same file, size and mtime).
    pub reused: u32,
    /// Read on from the stored offset (appended to).
    pub resumed: u32,
    /// Read cold (head and tail): new, replaced, shrunk, rewritten, or no usable stored entry.
    pub cold: u32,
    /// Bytes read on from stored offsets.
    pub resumed_bytes: u64,
    /// Whether the persistent index file was unusable (damaged, another version) and rebuilt.
    pub store_rebuilt: bool,
}

/// Version of `<data>/sessions/index.json`; another version is rebuilt.
const STORE_VERSION: u32 = 1;

/// The persistent index ([`crate::stamped`]): per transcript, its stamp, the offset read to (the
/// end of the last complete line), a check of the bytes before it, and the facts read so far.
type Store = std::collections::BTreeMap<PathBuf, Stored>;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    agent: Agent,
    stamp: FileStamp,
    offset: u64,
    check: u64,
    key: String,
    facts: Facts,
}

pub(crate) fn store_path(data: &Path) -> PathBuf {
    data.join("sessions").join("index.json")
}

/// The stored index, or an empty one when it is missing, damaged or of another version (then
/// `rebuilt` is set): never trusted beyond what each entry's stamp and check confirm.
fn load_store(data: &Path) -> (Store, bool) {
    let path = store_path(data);
    let (store, rebuild) = crate::stamped::load(&path, STORE_VERSION);
    if let Some(why) = &rebuild {
        tracing::warn!("session index {} {why}: rebuilt", path.display());
    }
    (store, rebuild.is_some())
}

/// How an entry came to be: unread from the store, read on from its offset, or read cold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Reused,
    Resumed(u64),
    Cold,
}

/// Every session on the machine, kept up to date from file-watcher paths.
#[derive(Debug)]
pub struct SessionIndex {
    roots: Roots,
    entries: Vec<Entry>,
    by_path: HashMap<PathBuf, usize>,
    subagent_paths: HashMap<PathBuf, (usize, usize)>,
    registry: HashMap<PathBuf, Live>,
    /// Claude Code sessions whose registry entry was removed while watched: the CLI removes its
    /// entry when it exits, so such a session is over (`ended`) however its last records read
    /// (a killed tmux session, Plandeck's own Stop), until an entry names it again.
    exited: BTreeSet<String>,
    gemini_projects: HashMap<String, String>,
    now: Option<OffsetDateTime>,
    stats: OpenStats,
}

/// Every transcript of every agent under `roots` (Claude Code sessions, Gemini CLI chats, Codex
/// CLI rollouts), subagent transcripts not included. Shared with [`crate::history`].
pub(crate) fn transcript_files(roots: &Roots) -> Vec<(Agent, PathBuf)> {
    let mut found = Vec::new();
    for project in dir_entries(&agents::claude::projects_dir(&roots.claude)) {
        for p in dir_entries(&project) {
            if is_jsonl(&p) && p.is_file() {
                found.push((Agent::Claude, p));
            }
        }
    }
    for slug in dir_entries(&agents::gemini::tmp_dir(&roots.gemini)) {
        for p in dir_entries(&agents::gemini::chats_dir(&slug)) {
            if is_jsonl(&p) && file_name(&p).starts_with("session-") {
                found.push((Agent::Gemini, p));
            }
        }
    }
    let mut rollouts = Vec::new();
    walk(
        &agents::codex::sessions_dir(&roots.codex),
        0,
        &mut rollouts,
        &|p| is_jsonl(p) && file_name(p).starts_with("rollout-"),
    );
    found.extend(rollouts.into_iter().map(|p| (Agent::Codex, p)));
    found
}

pub(super) fn feed(agent: Agent, facts: &mut Facts, line: &[u8]) {
    // A multi-MiB line (a tool's whole output, a file's content) is shrunk to its structure and
    // short fields before parsing: what state needs is never in a long string.
    if line.len() > ELIDE_LINE {
        thread_local! {
            static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        return BUF.with(|b| {
            let mut b = b.borrow_mut();
            elide_long_strings(line, ELIDE_KEEP, &mut b);
            feed_parsed(agent, facts, &b);
            if b.capacity() > 1 << 20 {
                *b = Vec::new();
            }
        });
    }
    feed_parsed(agent, facts, line)
}

fn feed_parsed(agent: Agent, facts: &mut Facts, line: &[u8]) {
    match agent {
        Agent::Claude => claude::feed_line(facts, line, false),
        Agent::Gemini => gemini::feed_line(facts, line),
        Agent::Codex => codex::feed_line(facts, line),
        Agent::Other => {}
    }
}

fn is_jsonl(p: &Path) -> bool {
    p.extension().and_then(|x| x.to_str()) == Some("jsonl")
}

fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

fn dir_entries(dir: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(rd) => rd.flatten().map(|e| e.path()).collect(),
        Err(e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::debug!(
                    "{}",
                    super::SessionsError::Read {
                        path: dir.to_owned(),
                        source: e
                    }
                );
            }
            Vec::new()
        }
    }
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>, keep: &dyn Fn(&Path) -> bool) {
    if depth > MAX_DEPTH {
        return;
    }
    for p in dir_entries(dir) {
        if p.is_dir() {
            walk(&p, depth + 1, out, keep);
        } else if keep(&p) {
            out.push(p);
        }
    }
}

fn mtime(p: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

fn from_millis(ms: i64) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok()
}

fn format_time(t: OffsetDateTime) -> Option<String> {
    t.to_offset(time::UtcOffset::UTC)
        .format(&time::format_description::well_known::Rfc3339)
        .ok()
}

impl SessionIndex {
    /// Discovers every session and reads what changed since the persistent index
    /// (`<data>/sessions/index.json`) was written: an unchanged transcript is not read, an
    /// appended one is read on from its stored offset, any other (new, replaced, shrunk, rewritten,
    /// or a damaged index) is read cold, head and tail. The index is then saved (atomically) when
    /// anything differs.
    pub fn open(roots: &Roots) -> SessionIndex {
        Self::open_with_progress(roots, &|_| {})
    }

    /// [`SessionIndex::open`], telling `progress` how many transcripts are read so far (from any
    /// reading thread, at most about once per 1% and at the end), so a window can fill in.
    pub fn open_with_progress(
        roots: &Roots,
        progress: &(dyn Fn(super::IndexProgress) + Sync),
    ) -> SessionIndex {
        let mut index = SessionIndex {
            roots: roots.clone(),
            entries: Vec::new(),
            by_path: HashMap::new(),
            subagent_paths: HashMap::new(),
            registry: HashMap::new(),
            exited: BTreeSet::new(),
            gemini_projects: HashMap::new(),
            now: None,
            stats: OpenStats::default(),
        };
        index.load_gemini_projects();
        for p in dir_entries(&agents::claude::registry_dir(&roots.claude)) {
            index.read_registry(&p);
        }
        let (store, rebuilt) = load_store(&roots.data);
        let found = index.discover_all();
        let total = found.len();
        let step = (total / 100).max(1);
        let read = std::sync::atomic::AtomicUsize::new(0);
        progress(super::IndexProgress::new(0, total, false));
        let entries: Vec<(Entry, Origin)> = with_tail_buffers(|| {
            found
                .into_par_iter()
                .map(|(agent, path)| {
                    let e = index.load_stored(agent, &path, store.get(&path));
                    let n = read.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    if n.is_multiple_of(step) && n < total {
                        progress(super::IndexProgress::new(n, total, false));
                    }
                    e
                })
                .collect()
        });
        let mut stats = OpenStats {
            files: entries.len() as u32,
            store_rebuilt: rebuilt,
            ..OpenStats::default()
        };
        for (e, origin) in entries {
            match origin {
                Origin::Reused => stats.reused += 1,
                Origin::Resumed(n) => {
                    stats.resumed += 1;
                    stats.resumed_bytes += n;
                }
                Origin::Cold => stats.cold += 1,
            }
            index.insert(e);
        }
        index.stats = stats;
        if rebuilt || stats.resumed + stats.cold > 0 || store.len() != index.entries.len() {
            if let Err(e) = index.save() {
                tracing::warn!("the session index was not saved: {e}");
            }
        }
        progress(super::IndexProgress::new(total, total, true));
        index
    }

    /// What the last [`SessionIndex::open`] read.
    pub fn open_stats(&self) -> OpenStats {
        self.stats
    }

    /// Writes the persistent index (atomically, 0600 in a 0700 folder): every transcript read so far, with its stamp and
    /// offset. Sessions with subagent transcripts are left out (read cold each time).
    pub fn save(&self) -> Result<(), crate::durable::WriteError> {
        let mut store = Store::new();
        for e in &self.entries {
            if e.deleted || !e.subagents.is_empty() || e.agent == Agent::Other {
                continue;
            }
            let path = &e.follower.path;
            let offset = e.follower.offset - e.follower.splitter.pending() as u64;
            let (Ok(stamp), Ok(check)) = (FileStamp::of(path), check_before(path, offset)) else {
                continue;
            };
            // Only a stamp taken where the follower stopped says "read up to here".
            if stamp.ino != e.follower.file_id || stamp.size != e.follower.offset {
                continue;
            }
            store.insert(
                path.clone(),
                Stored {
                    agent: e.agent,
                    stamp,
                    offset,
                    check,
                    key: e.key.clone(),
                    facts: e.facts.clone(),
                },
            );
        }
        crate::stamped::save(&store_path(&self.roots.data), STORE_VERSION, &store)
    }

    /// An entry from its stored state when the file allows it, else read cold.
    fn load_stored(&self, agent: Agent, path: &Path, stored: Option<&Stored>) -> (Entry, Origin) {
        if let Some(s) = stored.filter(|s| s.agent == agent) {
            if let Some(found) = self.resume_stored(agent, path, s) {
                return found;
            }
        }
        (self.load(agent, path), Origin::Cold)
    }

    fn resume_stored(&self, agent: Agent, path: &Path, s: &Stored) -> Option<(Entry, Origin)> {
        let now = FileStamp::of(path).ok()?;
        let resume = s.stamp.resume(s.offset, &now);
        if resume == Resume::Restart || check_before(path, s.offset).ok()? != s.check {
            return None;
        }
        if agent == Agent::Claude && !claude::subagent_transcripts(path).is_empty() {
            return None;
        }
        let mut e = Entry {
            agent,
            key: s.key.clone(),
            follower: Follower {
                path: path.to_owned(),
                offset: s.offset,
                file_id: now.ino,
                splitter: LineSplitter::default(),
            },
            facts: s.facts.clone(),
            subagents: Vec::new(),
            deleted: false,
            tasks: None,
            plan: None,
        };
        let origin = match resume {
            Resume::Unchanged if now.size == s.offset => Origin::Reused,
            _ => {
                let facts = &mut e.facts;
                match e.follower.read_new(&mut |l| feed(agent, facts, l)) {
                    Ok(Progress::Appended | Progress::Unchanged) => {}
                    _ => return None,
                }
                e.facts.unreadable += std::mem::take(&mut e.follower.splitter.overlong);
                e.key = session_key(agent, path, &e.facts);
                Origin::Resumed(e.follower.offset - s.offset)
            }
        };
        if agent == Agent::Claude {
            e.tasks = claude::task_progress(&agents::claude::tasks_dir(&self.roots.claude), &e.key);
        }
        self.refresh_plan(&mut e);
        Some((e, origin))
    }

    /// Fixes the clock used for time-based rules (tests, benchmarks); `None` uses the system clock.
    pub fn set_now(&mut self, now: Option<OffsetDateTime>) {
        self.now = now;
    }

    fn now(&self) -> OffsetDateTime {
        self.now.unwrap_or_else(OffsetDateTime::now_utc)
    }

    /// What a watcher should watch (folders recursively, plus Gemini's `projects.json` file) for
    /// [`SessionIndex::apply`]: every folder of every agent, whether it exists yet or not. The
    /// watcher arms a missing one on its nearest existing ancestor and reports what is in it once
    /// it appears (a first run, before any agent made its folders: issue 34). Pid liveness has no
    /// file event: call [`SessionIndex::tick`] now and then, and `sessions()` again for
    /// time-based states.
    pub fn watch_roots(&self) -> Vec<PathBuf> {
        Self::watch_roots_of(&self.roots)
    }

    /// [`SessionIndex::watch_roots`] before any index is open (a watcher started while the index
    /// loads in the background).
    pub fn watch_roots_of(roots: &Roots) -> Vec<PathBuf> {
        let r = roots;
        vec![
            agents::claude::projects_dir(&r.claude),
            agents::claude::registry_dir(&r.claude),
            agents::claude::tasks_dir(&r.claude),
            agents::claude::plans_dir(&r.claude),
            agents::gemini::tmp_dir(&r.gemini),
            agents::gemini::projects_file(&r.gemini),
            agents::codex::sessions_dir(&r.codex),
        ]
    }

    fn discover_all(&self) -> Vec<(Agent, PathBuf)> {
        transcript_files(&self.roots)
    }

    /// Which agent's transcript `path` would be, by where it is.
    fn classify(&self, path: &Path) -> Option<Agent> {
        if !is_jsonl(path) {
            return None;
        }
        let parent = path.parent()?;
        if parent.parent() == Some(&agents::claude::projects_dir(&self.roots.claude)) {
            return Some(Agent::Claude);
        }
        if parent.file_name()? == agents::gemini::CHATS
            && parent.parent()?.parent() == Some(&agents::gemini::tmp_dir(&self.roots.gemini))
            && file_name(path).starts_with("session-")
        {
            return Some(Agent::Gemini);
        }
        if path.starts_with(agents::codex::sessions_dir(&self.roots.codex))
            && file_name(path).starts_with("rollout-")
        {
            return Some(Agent::Codex);
        }
        None
    }

    fn load_gemini_projects(&mut self) {
        self.gemini_projects = agents::gemini::read_projects(&self.roots.gemini);
    }

    fn gemini_cwd(&self, chat: &Path) -> Option<String> {
        let slug_dir = agents::gemini::slug_dir_of_chat(chat)?;
        let slug = slug_dir.file_name()?.to_str()?;
        if let Some(p) = self.gemini_projects.get(slug) {
            return Some(p.clone());
        }
        agents::gemini::read_project_root(slug_dir)
    }

    /// Reads a transcript cold: head for the cwd and first prompt, then the tail.
    fn load(&self, agent: Agent, path: &Path) -> Entry {
        let mut e = Entry {
            agent,
            key: String::new(),
            follower: Follower::new(path),
            facts: Facts::default(),
            subagents: Vec::new(),
            deleted: false,
            tasks: None,
            plan: None,
        };
        self.reload(&mut e);
        e
    }

    fn reload(&self, e: &mut Entry) {
        let path = e.follower.path.clone();
        let agent = e.agent;
        let Ok(meta) = std::fs::metadata(&path) else {
            e.deleted = true;
            return;
        };
        let len = meta.len();
        let mut base = Facts::default();
        let small = len <= HEAD_WINDOWS[0] + TAIL_WINDOWS[0];
        if !small {
            for limit in HEAD_WINDOWS {
                let mut head = Facts::default();
                let _ = read_head(&path, limit, &mut |l| feed(agent, &mut head, l));
                let enough = head.title.is_some() && (agent == Agent::Gemini || head.cwd.is_some());
                base = head;
                if enough || limit >= len {
                    break;
                }
            }
            // What the head says about the turn is old news; the tail decides it.
            base.turn = state::Turn::None;
            base.pending.clear();
            base.unreadable = 0;
        }
        let mut follower = Follower::new(&path);
        let mut facts = base.clone();
        // A small file is read whole, once; a larger one from whole lines at its end, widened
        // while they hold no record that tells the turn.
        let windows: &[u64] = if small { &[u64::MAX] } else { &TAIL_WINDOWS };
        let facts_cell = std::cell::RefCell::new(&mut facts);
        let read = follower.read_tail_lines(
            windows,
            &mut || **facts_cell.borrow_mut() = base.clone(),
            &mut |l| feed(agent, &mut facts_cell.borrow_mut(), l),
            &mut || facts_cell.borrow().anchored(),
        );
        if read.is_err() {
            e.deleted = true;
            return;
        }
        facts.unreadable += std::mem::take(&mut follower.splitter.overlong);
        if agent == Agent::Gemini && facts.cwd.is_none() {
            facts.cwd = self.gemini_cwd(&path);
        }
        e.key = session_key(agent, &path, &facts);
        e.facts = facts;
        e.follower = follower;
        e.deleted = false;
        e.subagents.clear();
        if agent == Agent::Claude {
            for sub in claude::subagent_transcripts(&path) {
                let mut f = Follower::new(&sub);
                let facts = &mut e.facts;
                let _ = f.read_tail(TAIL_WINDOWS[0], &mut |l| claude::feed_line(facts, l, true));
                e.subagents.push(f);
            }
            e.tasks = claude::task_progress(&agents::claude::tasks_dir(&self.roots.claude), &e.key);
        }
        self.refresh_plan(e);
    }

    fn resolve_plan(&self, e: &Entry) -> Option<PathBuf> {
        match e.agent {
            Agent::Claude => {
                let named = e.facts.plan_path.as_ref().map(PathBuf::from);
                let by_slug =
                    e.facts.slug.as_ref().map(|s| {
                        agents::claude::plans_dir(&self.roots.claude).join(format!("{s}.md"))
                    });
                if let Some(p) = named.as_ref().filter(|p| p.is_file()) {
                    return Some(p.clone());
                }
                if let Some(p) = by_slug.filter(|p| p.is_file()) {
                    return Some(p);
                }
                named
            }
            Agent::Gemini => {
                let dir = e
                    .follower
                    .path
                    .parent()?
                    .parent()?
                    .join(&e.key)
                    .join(agents::gemini::PLANS);
                if let Some(name) = &e.facts.plan_path {
                    return Some(dir.join(name));
                }
                let mds: Vec<PathBuf> = dir_entries(&dir)
                    .into_iter()
                    .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("md"))
                    .collect();
                mds.into_iter().max_by_key(|p| mtime(p))
            }
            _ => None,
        }
    }

    fn refresh_plan(&self, e: &mut Entry) {
        e.plan = self.resolve_plan(e);
    }

    fn insert(&mut self, e: Entry) {
        let i = self.entries.len();
        self.by_path.insert(e.follower.path.clone(), i);
        for (j, s) in e.subagents.iter().enumerate() {
            self.subagent_paths.insert(s.path.clone(), (i, j));
        }
        self.entries.push(e);
    }

    fn read_registry(&mut self, path: &Path) -> bool {
        if path.extension().and_then(|x| x.to_str()) != Some("json") {
            return false;
        }
        let new = claude::RegistryFile::read(path).map(|file| {
            let alive = claude::pid_alive(file.pid, file.proc_start.as_deref());
            Live { file, alive }
        });
        match new {
            Some(live) => {
                self.exited.remove(&live.file.session_id);
                let old = self.registry.insert(path.to_owned(), live.clone());
                old.as_ref() != Some(&live)
            }
            None => {
                let Some(old) = self.registry.remove(path) else {
                    return false;
                };
                // Gone (not merely mid-write): its CLI exited.
                if !path.exists() {
                    self.exited.insert(old.file.session_id);
                }
                true
            }
        }
    }

    fn live_for(&self, session_id: &str) -> Option<&Live> {
        // Several entries can name one session (a stale one left by a crash and a new one):
        // a live one wins.
        let mut found: Option<&Live> = None;
        for l in self.registry.values() {
            if l.file.session_id == session_id && !matches!(found, Some(f) if f.alive || !l.alive) {
                found = Some(l);
            }
        }
        found
    }

    fn summary(&self, e: &Entry, now: OffsetDateTime) -> SessionSummary {
        let f = &e.facts;
        let live = if e.agent == Agent::Claude {
            self.live_for(&e.key)
        } else {
            None
        };
        let reg = live.map(|l| Registry {
            pid: l.file.pid,
            status: l.file.status.clone(),
            alive: l.alive,
            started: l.file.started_at.and_then(from_millis),
        });
        let state = if live.is_none() && e.agent == Agent::Claude && self.exited.contains(&e.key) {
            SessionState::Ended
        } else {
            state::derive(f, reg.as_ref(), now)
        };
        let reg_time = live
            .and_then(|l| l.file.updated_at)
            .and_then(|ms| OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok());
        let last = match (f.last_activity, reg_time) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        SessionSummary {
            agent: e.agent,
            session_id: e.key.clone(),
            cwd: f
                .cwd
                .clone()
                .or_else(|| live.and_then(|l| l.file.cwd.clone()))
                .unwrap_or_default(),
            state,
            permission_mode: f.permission_mode.clone(),
            plan_path: e.plan.as_ref().map(|p| p.to_string_lossy().into_owned()),
            worktree: f
                .worktree
                .as_ref()
                .filter(|_| f.in_worktree)
                .map(|w| w.path.clone()),
            last_activity: last.and_then(format_time),
            git_branch: f.git_branch.clone(),
            tmux_pane: live.and_then(|l| l.file.tmux.clone()),
            pid: live.map(|l| l.file.pid),
            version: f
                .version
                .clone()
                .or_else(|| live.and_then(|l| l.file.version.clone())),
            model: f.model.clone(),
            name: live.and_then(|l| l.file.name.clone()),
            title: f.title.clone(),
            doing: f.doing.clone(),
            unreadable_lines: f.unreadable,
            tasks: e.tasks,
            transcript_path: Some(e.follower.path.to_string_lossy().into_owned()),
            // Settled at listing time (crate::standing::settle_sessions).
            review_state: None,
            machine: None,
        }
    }

    fn registry_only(&self, live: &Live) -> SessionSummary {
        let state = if live.alive {
            state::derive(
                &Facts::default(),
                Some(&Registry {
                    pid: live.file.pid,
                    status: live.file.status.clone(),
                    alive: true,
                    started: None,
                }),
                self.now(),
            )
        } else {
            SessionState::Crashed
        };
        SessionSummary {
            agent: Agent::Claude,
            session_id: live.file.session_id.clone(),
            cwd: live.file.cwd.clone().unwrap_or_default(),
            state,
            permission_mode: None,
            plan_path: None,
            worktree: None,
            last_activity: live
                .file
                .updated_at
                .and_then(|ms| {
                    OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok()
                })
                .and_then(format_time),
            git_branch: None,
            tmux_pane: live.file.tmux.clone(),
            pid: Some(live.file.pid),
            version: live.file.version.clone(),
            model: None,
            name: live.file.name.clone(),
            title: None,
            unreadable_lines: 0,
            tasks: claude::task_progress(
                &agents::claude::tasks_dir(&self.roots.claude),
                &live.file.session_id,
            ),
            transcript_path: None,
            review_state: None,
            machine: None,
            doing: None,
        }
    }

    /// Every session, those that need the person first (see the module doc for the order).
    pub fn sessions(&self) -> Vec<SessionSummary> {
        let now = self.now();
        let mut out: Vec<SessionSummary> = self
            .entries
            .iter()
            .filter(|e| !e.deleted)
            .map(|e| self.summary(e, now))
            .collect();
        let mut seen: BTreeSet<&str> = self
            .entries
            .iter()
            .filter(|e| !e.deleted && e.agent == Agent::Claude)
            .map(|e| e.key.as_str())
            .collect();
        let mut lives: Vec<&Live> = self.registry.values().collect();
        lives.sort_by_key(|l| !l.alive);
        for live in lives {
            if seen.insert(live.file.session_id.as_str()) {
                out.push(self.registry_only(live));
            }
        }
        sort(&mut out);
        out
    }

    /// One session by id (the first of any agent with that id), without building the whole list:
    /// what a card needs after [`SessionIndex::apply`].
    pub fn session(&self, session_id: &str) -> Option<SessionSummary> {
        let now = self.now();
        if let Some(e) = self
            .entries
            .iter()
            .find(|e| !e.deleted && e.key == session_id)
        {
            return Some(self.summary(e, now));
        }
        self.live_for(session_id).map(|l| self.registry_only(l))
    }

    /// Worktree facts of every Claude Code session (see [`WorktreeHint`]).
    pub fn worktree_hints(&self) -> Vec<WorktreeHint> {
        self.entries
            .iter()
            .filter(|e| !e.deleted && e.agent == Agent::Claude)
            .filter_map(|e| {
                let cwd = e.facts.cwd.clone()?;
                let wt = e.facts.worktree.as_ref();
                Some(WorktreeHint {
                    session_id: e.key.clone(),
                    cwd: PathBuf::from(cwd),
                    worktree_path: wt.map(|w| PathBuf::from(&w.path)),
                    original_head_commit: wt.and_then(|w| w.original_head_commit.clone()),
                    original_branch: wt.and_then(|w| w.original_branch.clone()),
                    running: self.live_for(&e.key).is_some_and(|l| l.alive),
                })
            })
            .collect()
    }

    /// Re-checks whether the processes of registry entries are alive (a killed CLI leaves its
    /// entry behind and no file changes). Returns whether any changed. Call it now and then.
    pub fn tick(&mut self) -> bool {
        let mut changed = false;
        for live in self.registry.values_mut() {
            let alive = claude::pid_alive(live.file.pid, live.file.proc_start.as_deref());
            changed |= alive != live.alive;
            live.alive = alive;
        }
        changed
    }

    /// Updates the index from paths a file watcher reported (files or folders, created, changed
    /// or deleted). Reads only the bytes appended since the last read. Returns whether anything
    /// [`SessionIndex::sessions`] shows changed.
    pub fn apply(&mut self, changed: &[PathBuf]) -> bool {
        let now = self.now();
        let mut touched: BTreeSet<usize> = BTreeSet::new();
        let mut visible = false;
        let tasks_root = agents::claude::tasks_dir(&self.roots.claude);
        let registry_dir = agents::claude::registry_dir(&self.roots.claude);
        // First find which entries each path concerns, to snapshot them before the update.
        for p in changed {
            if let Some(&i) = self.by_path.get(p) {
                touched.insert(i);
            } else if let Some(&(i, _)) = self.subagent_paths.get(p) {
                touched.insert(i);
            } else if let Ok(rest) = p.strip_prefix(&tasks_root) {
                if let Some(list) = rest
                    .components()
                    .next()
                    .and_then(|c| c.as_os_str().to_str())
                {
                    touched.extend(self.claude_entries(list));
                }
            } else {
                for (i, e) in self.entries.iter().enumerate() {
                    if e.plan.as_deref() == Some(p.as_path()) {
                        touched.insert(i);
                    }
                }
            }
        }
        let before: Vec<(usize, Option<SessionSummary>)> = touched
            .iter()
            .map(|&i| {
                (
                    i,
                    (!self.entries[i].deleted).then(|| self.summary(&self.entries[i], now)),
                )
            })
            .collect();

        for p in changed {
            if let Some(&i) = self.by_path.get(p) {
                self.follow(i);
            } else if let Some(&(i, j)) = self.subagent_paths.get(p) {
                let e = &mut self.entries[i];
                let facts = &mut e.facts;
                if let Some(sub) = e.subagents.get_mut(j) {
                    let _ = sub.read_new(&mut |l| claude::feed_line(facts, l, true));
                }
            } else if p.parent() == Some(registry_dir.as_path()) {
                visible |= self.read_registry(p);
            } else if let Ok(rest) = p.strip_prefix(&tasks_root) {
                if let Some(list) = rest
                    .components()
                    .next()
                    .and_then(|c| c.as_os_str().to_str())
                {
                    for i in self.claude_entries(list) {
                        self.entries[i].tasks = claude::task_progress(&tasks_root, list);
                    }
                    visible |= self.registry.values().any(|l| l.file.session_id == list);
                }
            } else if p == &agents::gemini::projects_file(&self.roots.gemini)
                || file_name(p) == agents::gemini::PROJECT_ROOT
            {
                self.load_gemini_projects();
            } else if let Some(agent) = self.classify(p) {
                visible |= self.add_new(agent, p);
            } else if self.is_subagent_path(p) {
                visible |= self.add_subagent(p);
            } else if p.is_dir() && self.under_roots(p) {
                let mut found = Vec::new();
                walk(p, 0, &mut found, &|f| is_jsonl(f));
                for f in found {
                    if self.by_path.contains_key(&f) || self.subagent_paths.contains_key(&f) {
                        continue;
                    }
                    if let Some(agent) = self.classify(&f) {
                        visible |= self.add_new(agent, &f);
                    } else if self.is_subagent_path(&f) {
                        visible |= self.add_subagent(&f);
                    }
                }
            }
            // A plan file: its entries' plans are resolved again below.
        }
        for &i in &touched {
            let mut e = std::mem::replace(&mut self.entries[i], placeholder());
            if !e.deleted {
                self.refresh_plan(&mut e);
            }
            self.entries[i] = e;
        }
        for (i, old) in before {
            let e = &self.entries[i];
            let new = (!e.deleted).then(|| self.summary(e, now));
            visible |= new != old;
        }
        visible
    }

    fn claude_entries(&self, session_id: &str) -> Vec<usize> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.agent == Agent::Claude && e.key == session_id)
            .map(|(i, _)| i)
            .collect()
    }

    fn under_roots(&self, p: &Path) -> bool {
        [&self.roots.claude, &self.roots.gemini, &self.roots.codex]
            .iter()
            .any(|r| p.starts_with(r))
    }

    /// `<claude>/projects/<project>/<sessionId>/subagents/<name>.jsonl`
    fn is_subagent_path(&self, p: &Path) -> bool {
        is_jsonl(p)
            && p.parent().and_then(|d| d.file_name()) == Some("subagents".as_ref())
            && p.ancestors().nth(4)
                == Some(agents::claude::projects_dir(&self.roots.claude).as_path())
    }

    fn add_subagent(&mut self, p: &Path) -> bool {
        let Some(sid) = p
            .ancestors()
            .nth(2)
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str())
        else {
            return false;
        };
        let transcript = p.ancestors().nth(3).map(|d| d.join(format!("{sid}.jsonl")));
        let Some(&i) = transcript.as_ref().and_then(|t| self.by_path.get(t)) else {
            return false;
        };
        let e = &mut self.entries[i];
        let mut f = Follower::new(p);
        let facts = &mut e.facts;
        let before = facts.last_activity;
        let _ = f.read_tail(TAIL_WINDOWS[0], &mut |l| claude::feed_line(facts, l, true));
        let changed = facts.last_activity != before;
        let j = e.subagents.len();
        e.subagents.push(f);
        self.subagent_paths.insert(p.to_owned(), (i, j));
        changed
    }

    fn add_new(&mut self, agent: Agent, p: &Path) -> bool {
        if !p.is_file() {
            return false;
        }
        let e = self.load(agent, p);
        if e.deleted {
            return false;
        }
        self.insert(e);
        true
    }

    /// Reads what was appended to entry `i`'s transcript.
    fn follow(&mut self, i: usize) {
        let e = &mut self.entries[i];
        let agent = e.agent;
        let facts = &mut e.facts;
        let progress = e.follower.read_new(&mut |l| feed(agent, facts, l));
        facts.unreadable += std::mem::take(&mut e.follower.splitter.overlong);
        match progress {
            Ok(Progress::Appended | Progress::Unchanged) => {
                if e.deleted {
                    e.deleted = false;
                }
                e.key = session_key(agent, &e.follower.path, &e.facts);
            }
            Ok(Progress::Replaced) => {
                let mut e = std::mem::replace(&mut self.entries[i], placeholder());
                self.reload(&mut e);
                // The reload found the subagent transcripts afresh: point their paths at them.
                self.subagent_paths.retain(|_, (k, _)| *k != i);
                for (j, sub) in e.subagents.iter().enumerate() {
                    self.subagent_paths.insert(sub.path.clone(), (i, j));
                }
                self.entries[i] = e;
            }
            Ok(Progress::Missing) | Err(_) => e.deleted = true,
        }
    }
}

/// The id an entry is listed under: Claude Code's transcript name; the others' session id from the
/// file's own records (Codex's `session_meta`), else the file's name until those are read. Codex
/// CLI 0.171 creates its rollout empty and writes `session_meta` a moment later: an entry first
/// read then takes its id once the record is appended (issue 34).
fn session_key(agent: Agent, path: &Path, facts: &Facts) -> String {
    let stem = || {
        path.file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned()
    };
    match agent {
        Agent::Claude => stem(),
        _ => facts.session_id.clone().unwrap_or_else(stem),
    }
}

fn placeholder() -> Entry {
    Entry {
        agent: Agent::Other,
        key: String::new(),
        follower: Follower::new(Path::new("")),
        facts: Facts::default(),
        subagents: Vec::new(),
        deleted: true,
        tasks: None,
        plan: None,
    }
}

fn rank(s: SessionState) -> u8 {
    match s {
        SessionState::WaitingForApproval => 0,
        SessionState::WaitingForInput => 1,
        SessionState::Crashed => 2,
        SessionState::Working => 3,
        SessionState::Idle => 4,
        SessionState::Unknown => 5,
        SessionState::Ended => 6,
    }
}

/// The one order of sessions, wherever they are shown: those that need the person first (a plan
/// to approve, a question), then a crash, then working, idle, unknown, and ended last; newest
/// first within each. The window only lifts the sessions the person pinned above the rest.
pub fn sort(out: &mut [SessionSummary]) {
    out.sort_by(|a, b| {
        rank(a.state)
            .cmp(&rank(b.state))
            .then_with(|| b.last_activity.cmp(&a.last_activity))
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
}
