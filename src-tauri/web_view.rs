//! How the window's web view is set up once it exists: WebKit's cache model (memory)
//! and the WebKit features that decide how its lists scroll (benches/results/window.md).

/// WebKit features the window turns on or off, by WebKit's identifier.
///
/// `AsyncOverflowScrolling` off: an element that scrolls (the plan list, the session grid, the
/// diff) is then painted in its page's layer and scrolled by repainting what comes into view,
/// instead of being a composited layer of its own that the compositor moves. Plandeck's scrollers
/// hold text and cards; repainting the strip a step uncovers is cheap, while compositing the whole
/// window again at every step is not without a GPU (software GL on a machine without one): the
/// session grid's frames went from ~30 ms (p95 ~38, some over 50) to ~16 ms (p95 ~22), the
/// plan list's and the diff's alike. Compositing itself stays on. It also spares the tiles each
/// composited scroller keeps around its view.
pub const FEATURES: &[(&str, bool)] = &[("AsyncOverflowScrolling", false)];

/// Where a person overrides [`FEATURES`]: `Name=0,Other=1`. Only the features the window sets
/// can be named: the variable gives back WebKit's behaviour, it does not open the web view to any
/// other of WebKit's switches (some of which loosen what a page may do).
pub const FEATURES_VAR: &str = "PLANDECK_WEBKIT_FEATURES";

/// The features to set: [`FEATURES`], with the person's `overrides` (from [`FEATURES_VAR`]) over
/// them. Returns them with a note for each entry of `overrides` that is not `Name=0` or `Name=1`
/// for a feature of [`FEATURES`].
pub fn features(overrides: Option<&str>) -> (Vec<(String, bool)>, Vec<String>) {
    let mut out: Vec<(String, bool)> = FEATURES
        .iter()
        .map(|(name, on)| (name.to_string(), *on))
        .collect();
    let mut problems = Vec::new();
    for entry in overrides
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        let parsed = entry.split_once('=').and_then(|(name, value)| {
            let name = name.trim();
            let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric());
            let on = match value.trim() {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            };
            valid.then_some(name).zip(on)
        });
        match parsed {
            Some((name, on)) => match out.iter_mut().find(|(n, _)| n == name) {
                Some(feature) => feature.1 = on,
                None => problems.push(format!(
                    "{FEATURES_VAR}: \"{name}\" is not a feature the window sets (it sets {}); left out",
                    FEATURES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                )),
            },
            None => problems.push(format!(
                "{FEATURES_VAR}: \"{entry}\" is not Name=0 or Name=1; left out"
            )),
        }
    }
    (out, problems)
}

/// Sets the web view's cache model and [`features`]. A failure leaves WebKit's defaults, with a
/// warning: the window works either way.
pub fn configure(app: &tauri::AppHandle) {
    use tauri::Manager;
    let Some(window) = app.get_webview_window("main") else {
        tracing::warn!("no main window: the web view keeps WebKit's default caches and features");
        return;
    };
    let (wanted, problems) = features(std::env::var(FEATURES_VAR).ok().as_deref());
    for p in problems {
        tracing::warn!("{p}");
    }
    let set = window.with_webview(move |webview| {
        #[cfg(target_os = "linux")]
        {
            use webkit2gtk::{CacheModel, WebContextExt, WebViewExt};
            // WebKit's "document viewer" cache model: no back/forward cache, dead resources
            // dropped at once. The window loads one page, its own; WebKit's default is a
            // browser's.
            if let Some(context) = webview.inner().context() {
                context.set_cache_model(CacheModel::DocumentViewer);
            }
            match webview.inner().settings() {
                Some(settings) => {
                    let missing = linux::set_features(&settings, &wanted);
                    if !missing.is_empty() {
                        tracing::warn!(
                            ?missing,
                            "this WebKitGTK does not have these features; left as they are"
                        );
                    }
                }
                None => tracing::warn!("the web view has no settings; WebKit's features stay"),
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (webview, &wanted);
    });
    if let Err(e) = set {
        tracing::warn!("the web view keeps WebKit's default caches and features: {e}");
    }
}

/// Which entries of WebKit's feature list to set, and to what: of the list's `len` entries, a
/// missing one (`get` gives `None` for a null pointer) is skipped before its identifier is asked
/// for, and so is one without an identifier. Returns each wanted feature found with its value,
/// and the wanted names the list does not have.
pub fn pick_features<F: Copy>(
    len: usize,
    get: impl Fn(usize) -> Option<F>,
    identifier: impl Fn(F) -> Option<String>,
    wanted: &[(String, bool)],
) -> (Vec<(F, bool)>, Vec<String>) {
    let mut missing: Vec<String> = wanted.iter().map(|(n, _)| n.clone()).collect();
    let mut found = Vec::new();
    for i in 0..len {
        let Some(feature) = get(i) else {
            continue;
        };
        let Some(id) = identifier(feature) else {
            continue;
        };
        if let Some((_, on)) = wanted.iter().find(|(n, _)| *n == id) {
            found.push((feature, *on));
            missing.retain(|n| *n != id);
        }
    }
    (found, missing)
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::{c_char, c_int, c_void, CStr};
    use webkit2gtk::glib::translate::ToGlibPtr;

    type GetAll = unsafe extern "C" fn() -> *mut c_void;
    type Length = unsafe extern "C" fn(*mut c_void) -> usize;
    type Get = unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void;
    type Identifier = unsafe extern "C" fn(*mut c_void) -> *const c_char;
    type SetEnabled = unsafe extern "C" fn(*mut c_void, *mut c_void, c_int);
    type Unref = unsafe extern "C" fn(*mut c_void);

    /// A function of the loaded WebKitGTK by name, if it has it.
    fn symbol(name: &CStr) -> Option<*mut c_void> {
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks the name up.
        let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    }

    /// Sets each of `wanted` on `settings` through WebKitGTK's feature API (2.42 and later, looked
    /// up at run time so an older WebKitGTK still starts). Returns the names it does not have.
    pub fn set_features(settings: &webkit2gtk::Settings, wanted: &[(String, bool)]) -> Vec<String> {
        let all_missing = || wanted.iter().map(|(n, _)| n.clone()).collect();
        let (
            Some(get_all),
            Some(length),
            Some(get),
            Some(identifier),
            Some(set_enabled),
            Some(unref),
        ) = (
            symbol(c"webkit_settings_get_all_features"),
            symbol(c"webkit_feature_list_get_length"),
            symbol(c"webkit_feature_list_get"),
            symbol(c"webkit_feature_get_identifier"),
            symbol(c"webkit_settings_set_feature_enabled"),
            symbol(c"webkit_feature_list_unref"),
        )
        else {
            return all_missing();
        };
        let raw: *mut webkit2gtk::ffi::WebKitSettings = settings.to_glib_none().0;
        // SAFETY: each pointer is the WebKitGTK function of that name, with the signature its
        // documentation gives (webkit/WebKitFeature.h, WebKitSettings.h). The list is ours (full
        // transfer) and released at the end; the features and identifiers it hands out are
        // borrowed from it and not kept past it, and a null one is never passed on
        // ([`super::pick_features`] asks an identifier only of a feature that is there). `raw`
        // is the live settings object of this web view, on the main thread that `with_webview`
        // runs us on.
        let missing = unsafe {
            let get_all: GetAll = std::mem::transmute(get_all);
            let length: Length = std::mem::transmute(length);
            let get: Get = std::mem::transmute(get);
            let identifier: Identifier = std::mem::transmute(identifier);
            let set_enabled: SetEnabled = std::mem::transmute(set_enabled);
            let unref: Unref = std::mem::transmute(unref);
            let list = get_all();
            if list.is_null() {
                return all_missing();
            }
            let (found, missing) = super::pick_features(
                length(list),
                |i| {
                    let feature = get(list, i);
                    (!feature.is_null()).then_some(feature)
                },
                |feature| {
                    let id = identifier(feature);
                    (!id.is_null()).then(|| CStr::from_ptr(id).to_string_lossy().into_owned())
                },
                wanted,
            );
            for (feature, on) in found {
                set_enabled(raw.cast(), feature, c_int::from(on));
            }
            unref(list);
            missing
        };
        tracing::debug!(?wanted, "WebKit features set");
        missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_scrolling_is_not_composited_by_default() {
        let (set, problems) = features(None);
        assert_eq!(set, vec![("AsyncOverflowScrolling".to_string(), false)]);
        assert!(problems.is_empty());
    }

    #[test]
    fn the_person_gives_back_webkits_default() {
        let (set, problems) = features(Some(" AsyncOverflowScrolling=1 ,"));
        assert_eq!(set, vec![("AsyncOverflowScrolling".to_string(), true)]);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn only_the_windows_own_features_can_be_named() {
        // Other switches of WebKit's (some loosen what a page may do) stay out of reach.
        let (set, problems) = features(Some("DeveloperExtras=1,UseGiantTiles=0"));
        assert_eq!(set, vec![("AsyncOverflowScrolling".to_string(), false)]);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].contains("\"DeveloperExtras\" is not a feature the window sets"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_missing_feature_is_skipped_before_its_identifier_is_asked_for() {
        // WebKit's list as indexes: entry 1 is null, entry 2 has no identifier.
        let ids = [Some("Other"), None, None, Some("AsyncOverflowScrolling")];
        let asked = std::cell::RefCell::new(Vec::new());
        let (found, missing) = pick_features(
            4,
            |i| (i != 1).then_some(i),
            |i: usize| {
                asked.borrow_mut().push(i);
                ids[i].map(str::to_owned)
            },
            &[
                ("AsyncOverflowScrolling".to_string(), false),
                ("Gone".to_string(), true),
            ],
        );
        assert_eq!(found, vec![(3, false)]);
        assert_eq!(missing, vec!["Gone".to_string()]);
        assert_eq!(
            *asked.borrow(),
            vec![0, 2, 3],
            "asked the identifier of a null entry"
        );
    }

    #[test]
    fn malformed_overrides_are_left_out_with_a_reason() {
        let (set, problems) = features(Some(
            "Scrolling,Bad Name=1,X=yes,=1,AsyncOverflowScrolling=1",
        ));
        assert_eq!(set, vec![("AsyncOverflowScrolling".to_string(), true)]);
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].contains("\"Scrolling\""), "{problems:?}");
    }
}
