//! The first view's data, handed to the page with it (issue 34, the first impression).
//!
//! A cold web view answers the first IPC calls late: the page's calls made while it mounts come
//! back a frame or more after WebKit's first layout and paint, 250–350 ms after the page's
//! DOMContentLoaded (BENCHMARKS.md, first content), while each answer takes under a millisecond
//! here. So the window computes what the first view shows (the overview and the plan listing,
//! the answers of `get_overview` and `list_plans`) while WebKit starts, and the page loads it as
//! `/first.js` (ui/index.html, a classic script before the bundle; `script-src 'self'` allows it:
//! it is one of the app's own assets) setting `window.__PLANDECK_FIRST__`. The UI draws its first
//! view from it and asks again by IPC as before (ui/src/lib/first.ts), so what is shown is the
//! same; only the first frame holds it. The script holds data only: serialized JSON, never code
//! built from what the files say.
//!
//! Only what the first frame draws: the listing's first [`FIRST_ROWS`] plans (newest first, the
//! rows on screen at start) and how many there are in all (`plansTotal`). A heavy home's whole
//! listing (hundreds of plans) would be parsed and held by the page before its first paint; the
//! UI takes the rest from `list_plans`, asked once it is mounted, after that paint.

use std::borrow::Cow;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use plandeck_core::plans::PlanListing;
use tauri::utils::assets::{AssetKey, AssetsIter, CspHash};
use tauri::{Assets, Runtime};

/// The asset the page loads (ui/public/first.js is its stand-in for the Vite dev server).
pub const PATH: &str = "/first.js";

/// How long the page's request for [`PATH`] waits for the data before it gets none (the UI then
/// asks by IPC, as before). The data is computed from the window's start, so it is normally
/// ready long before the web view asks.
const WAIT: Duration = Duration::from_millis(400);

/// How many plan rows the first response holds: more than the tallest window shows at start (the
/// list draws the rows in view and 6 more: 20 at 900 px high, 39 at 2160 px).
pub const FIRST_ROWS: usize = 40;

/// The first view's data, once computed: the script served as [`PATH`].
#[derive(Clone, Default)]
pub struct First(Arc<(Mutex<Option<Vec<u8>>>, Condvar)>);

impl First {
    /// Computes the script from `overview` and `plans` (each the command's answer, or its error:
    /// left out, so the UI asks) and hands it to the page's request.
    pub fn set<O: serde::Serialize, E>(
        &self,
        overview: Result<O, E>,
        plans: Result<(PlanListing, usize), E>,
    ) {
        let script = script(overview.ok(), plans.ok());
        let (lock, ready) = &*self.0;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = Some(script.into_bytes());
        ready.notify_all();
    }

    /// The script, waiting up to `wait` for it; an empty one (no data) after that.
    fn get(&self, wait: Duration) -> Vec<u8> {
        let (lock, ready) = &*self.0;
        let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, _) = ready
            .wait_timeout_while(guard, wait, |s| s.is_none())
            .unwrap_or_else(|e| e.into_inner());
        match guard.as_ref() {
            Some(script) => script.clone(),
            None => {
                tracing::info!("the first view's data was not ready: the page asks for it");
                script::<()>(None, None).into_bytes()
            }
        }
    }
}

/// `window.__PLANDECK_FIRST__ = {...};`: a JSON object (a JavaScript expression), its keys
/// those given: `overview`, `plans` (the listing's first [`FIRST_ROWS`] plans and its problems)
/// and `plansTotal` (how many plans the whole listing holds).
pub fn script<O: serde::Serialize>(
    overview: Option<O>,
    plans: Option<(PlanListing, usize)>,
) -> String {
    let mut first = serde_json::Map::new();
    let mut put = |key: &str, value: Option<serde_json::Result<serde_json::Value>>| {
        if let Some(Ok(v)) = value {
            first.insert(key.to_owned(), v);
        }
    };
    put("overview", overview.map(serde_json::to_value));
    let total = plans.as_ref().map(|(_, total)| *total);
    put(
        "plans",
        plans.map(|(mut listing, _)| {
            listing.plans.truncate(FIRST_ROWS);
            serde_json::to_value(listing)
        }),
    );
    put("plansTotal", total.map(|n| Ok(n.into())));
    // JSON is a JavaScript expression (U+2028 and U+2029 in its strings too, since ES2019).
    format!(
        "window.__PLANDECK_FIRST__ = {};\n",
        serde_json::Value::Object(first)
    )
}

/// The app's assets, with [`PATH`] served from [`First`].
pub struct WithFirst<R: Runtime> {
    pub inner: Box<dyn Assets<R>>,
    pub first: First,
}

impl<R: Runtime> Assets<R> for WithFirst<R> {
    fn setup(&self, app: &tauri::App<R>) {
        self.inner.setup(app)
    }

    fn get(&self, key: &AssetKey) -> Option<Cow<'_, [u8]>> {
        if key.as_ref() == PATH {
            return Some(Cow::Owned(self.first.get(WAIT)));
        }
        self.inner.get(key)
    }

    fn iter(&self) -> Box<AssetsIter<'_>> {
        self.inner.iter()
    }

    fn csp_hashes(&self, html_path: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        self.inner.csp_hashes(html_path)
    }
}

/// No assets: the stand-in while the app's own are moved into [`WithFirst`].
pub struct NoAssets;

impl<R: Runtime> Assets<R> for NoAssets {
    fn get(&self, _key: &AssetKey) -> Option<Cow<'_, [u8]>> {
        None
    }

    fn iter(&self) -> Box<AssetsIter<'_>> {
        Box::new(std::iter::empty())
    }

    fn csp_hashes(&self, _html_path: &AssetKey) -> Box<dyn Iterator<Item = CspHash<'_>> + '_> {
        Box::new(std::iter::empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_sets_the_data_given_and_leaves_out_the_rest() {
        let s = script(Some(serde_json::json!({"home": "/h"})), None);
        assert_eq!(
            s,
            "window.__PLANDECK_FIRST__ = {\"overview\":{\"home\":\"/h\"}};\n"
        );
        let s = script(None::<()>, None);
        assert_eq!(s, "window.__PLANDECK_FIRST__ = {};\n");
    }

    /// What plan files say (titles, paths) stays data: the script is one JSON object literal, whatever
    /// the strings hold (quotes, backslashes, a closing script tag, line and paragraph separators).
    #[test]
    fn hostile_text_stays_a_string_in_the_script() {
        let hostile =
            "\"}; alert(1); //\\</script><script>alert(2)</script>\u{2028}\u{2029}\n`${x}`";
        let value = serde_json::json!({"title": hostile});
        let s = script(Some(&value), None);
        let json = s
            .strip_prefix("window.__PLANDECK_FIRST__ = ")
            .and_then(|rest| rest.strip_suffix(";\n"))
            .unwrap();
        let back: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(back, serde_json::json!({"overview": {"title": hostile}}));
    }

    /// A plan as a heavy home lists it: a long title, a project, a session, a branch.
    fn plan(i: usize) -> plandeck_core::plans::PlanSummary {
        plandeck_core::plans::PlanSummary {
            id: format!("plan-{i:04}"),
            path: format!("/home/someone/.claude/plans/cursor-pagination-handler-{i:04}.md"),
            agent: plandeck_core::agents::Agent::Claude,
            title: format!(
                "Plan: cursor pagination for the request handler, with a cache index {i}"
            ),
            project: Some(format!("/home/someone/work/project-{}", i % 17)),
            session_id: Some(format!("0b6f3c0e-2a7d-4c1e-9f3a-{i:012}")),
            git_branch: Some("main".into()),
            state: plandeck_core::plans::ReviewState::Unreviewed,
            decided_in: None,
            waiting_request: None,
            updated_at: Some("2026-11-28T17:00:00Z".into()),
            size_bytes: 6000,
            problem: None,
            subagent_id: None,
            machine: None,
        }
    }

    fn parsed(script: &str) -> serde_json::Value {
        let json = script
            .strip_prefix("window.__PLANDECK_FIRST__ = ")
            .and_then(|rest| rest.strip_suffix(";\n"))
            .unwrap();
        serde_json::from_str(json).unwrap()
    }

    /// The first response of a heavy home (500 plans, benches/memory/gen_data.py's) holds the rows
    /// the first frame draws and the count, not the whole listing: the page parses a few KB
    /// before its first paint, and takes the rest from `list_plans` after it (issue 34).
    #[test]
    fn the_first_response_holds_the_first_rows_and_how_many_there_are() {
        let listing = PlanListing {
            plans: (0..500).map(plan).collect(),
            problems: vec!["~/.gemini/tmp cannot be read: permission denied".into()],
        };
        let whole = serde_json::to_string(&listing).unwrap().len();
        let s = script(None::<()>, Some((listing.clone(), listing.plans.len())));
        let first = parsed(&s);
        let rows = first["plans"]["plans"].as_array().unwrap();
        assert_eq!(rows.len(), FIRST_ROWS);
        let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
        let newest: Vec<&str> = listing.plans[..FIRST_ROWS]
            .iter()
            .map(|p| p.id.as_str())
            .collect();
        assert_eq!(ids, newest, "the newest plans, in the listing's order");
        assert_eq!(
            first["plans"]["problems"],
            serde_json::json!(listing.problems)
        );
        assert_eq!(first["plansTotal"], 500);
        assert!(
            s.len() < 24 * 1024 && s.len() * 10 < whole,
            "{} bytes for the first frame, of {whole} for the whole listing",
            s.len()
        );
        // A home with fewer plans than that hands them all over.
        let few = PlanListing {
            plans: (0..3).map(plan).collect(),
            problems: Vec::new(),
        };
        let first = parsed(&script(None::<()>, Some((few, 3))));
        assert_eq!(first["plans"]["plans"].as_array().unwrap().len(), 3);
        assert_eq!(first["plansTotal"], 3);
    }

    #[test]
    fn a_request_waits_for_the_data_then_gives_it() {
        let first = First::default();
        let later = first.clone();
        let t = std::thread::spawn(move || later.get(Duration::from_secs(60)));
        first.set(Ok(serde_json::json!([1])), Err(()));
        let got = String::from_utf8(t.join().unwrap()).unwrap();
        assert_eq!(got, "window.__PLANDECK_FIRST__ = {\"overview\":[1]};\n");
    }

    #[test]
    fn a_request_without_data_gets_none_after_the_wait() {
        let got = First::default().get(Duration::from_millis(1));
        assert_eq!(got, b"window.__PLANDECK_FIRST__ = {};\n");
    }
}
