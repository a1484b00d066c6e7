//! Every command opens the store private: a store left with looser modes (an older Plandeck, a
//! copy) is tightened before the command reads or writes it.

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;

use common::plandeck;

#[test]
fn any_command_tightens_a_loose_store_and_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let data = home.join(".local/share/plandeck");
    let config = home.join(".config/plandeck");
    fs::create_dir_all(data.join("gate/done")).unwrap();
    fs::create_dir_all(&config).unwrap();
    fs::write(data.join("decisions.jsonl"), "").unwrap();
    fs::write(data.join("gate/done/abc.json"), "{}").unwrap();
    fs::write(config.join("settings.json"), "{}\n").unwrap();
    for (p, m) in [
        (data.clone(), 0o755),
        (data.join("gate"), 0o755),
        (data.join("gate/done"), 0o775),
        (data.join("decisions.jsonl"), 0o644),
        (data.join("gate/done/abc.json"), 0o666),
        (config.clone(), 0o755),
        (config.join("settings.json"), 0o644),
    ] {
        fs::set_permissions(&p, fs::Permissions::from_mode(m)).unwrap();
    }

    let (code, out, err) = plandeck(home, &["log", "--json"]);
    assert_eq!(code, 0, "{out}{err}");

    let mode = |p: &std::path::Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for d in [&data, &data.join("gate"), &data.join("gate/done"), &config] {
        assert_eq!(mode(d), 0o700, "{}", d.display());
    }
    for f in [
        data.join("decisions.jsonl"),
        data.join("gate/done/abc.json"),
        config.join("settings.json"),
    ] {
        assert_eq!(mode(&f), 0o600, "{}", f.display());
    }
}
