//! A test certificate authority (openssl, P-256): a server certificate for 127.0.0.1 signed by a
//! CA the test trusts, for loopback HTTPS (the push service stand-ins, the phone page).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The files [`test_ca`] wrote.
#[derive(Debug, Clone)]
pub struct TestCa {
    /// The CA's certificate (what a client is told to trust).
    pub ca_pem: PathBuf,
    /// The certificate for 127.0.0.1 (subjectAltName IP:127.0.0.1, server use only).
    pub server_pem: PathBuf,
    /// Its private key.
    pub server_key: PathBuf,
}

/// Runs `openssl args` in `dir` and returns what it printed; a missing openssl, or one that fails,
/// fails the test loudly (`scripts/setup.sh --test` installs it).
#[track_caller]
pub fn openssl(args: &[&str], dir: &Path) -> Vec<u8> {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("openssl is needed by this test (scripts/setup.sh --test): {e}")
        });
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A CA and a certificate for 127.0.0.1 signed by it, valid two days, written in `dir`: ca.pem
/// (and ca.key), server.pem and server.key.
pub fn test_ca(dir: &Path) -> TestCa {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509"];
    ca.extend(ec);
    ca.extend([
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=Plandeck test CA",
    ]);
    openssl(&ca, dir);
    let mut csr = vec!["req"];
    csr.extend(ec);
    csr.extend([
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    openssl(&csr, dir);
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .expect("ext.cnf written");
    openssl(
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ],
        dir,
    );
    TestCa {
        ca_pem: dir.join("ca.pem"),
        server_pem: dir.join("server.pem"),
        server_key: dir.join("server.key"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_certificate_is_signed_by_the_ca_for_loopback() {
        let dir = tempfile::tempdir().unwrap();
        let ca = test_ca(dir.path());
        let ca_pem = ca.ca_pem.to_str().unwrap();
        let server_pem = ca.server_pem.to_str().unwrap();
        let said = openssl(
            &[
                "verify",
                "-CAfile",
                ca_pem,
                "-verify_ip",
                "127.0.0.1",
                server_pem,
            ],
            dir.path(),
        );
        assert!(String::from_utf8_lossy(&said).contains(": OK"), "{said:?}");
        assert!(ca.server_key.is_file());
    }
}
