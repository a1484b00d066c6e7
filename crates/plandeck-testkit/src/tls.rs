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
    test_ca_for(dir, "IP:127.0.0.1")
}

/// [`test_ca`] with the certificate for `names`, a subjectAltName list (`DNS:localhost,IP:…`);
/// `dir` is made when missing.
pub fn test_ca_for(dir: &Path, names: &str) -> TestCa {
    std::fs::create_dir_all(dir).expect("the certificates' folder made");
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
        format!("subjectAltName={names}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"),
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

/// The base64 (standard, padded) SHA-256 of the certificate `cert`'s public key (its SPKI, DER):
/// what Chromium's `--ignore-certificate-errors-spki-list` is given to trust it. Its steps are
/// written beside `cert` (`<name>.spki.pem`, `.der`, `.sha256`).
pub fn spki_sha256_b64(cert: &Path) -> String {
    let dir = cert.parent().unwrap_or(Path::new("."));
    let name = cert
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a certificate file name");
    let cert_arg = cert.to_str().expect("a UTF-8 path");
    let (pem, der, hash) = (
        format!("{name}.spki.pem"),
        format!("{name}.spki.der"),
        format!("{name}.spki.sha256"),
    );
    let public = openssl(&["x509", "-in", cert_arg, "-pubkey", "-noout"], dir);
    std::fs::write(dir.join(&pem), public).expect("the public key written");
    let bytes = openssl(&["pkey", "-pubin", "-in", &pem, "-outform", "der"], dir);
    std::fs::write(dir.join(&der), bytes).expect("its DER written");
    let digest = openssl(&["dgst", "-sha256", "-binary", &der], dir);
    std::fs::write(dir.join(&hash), digest).expect("its hash written");
    let b64 = openssl(&["base64", "-A", "-in", &hash], dir);
    String::from_utf8(b64)
        .expect("base64 is ASCII")
        .trim()
        .to_owned()
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

    #[test]
    fn names_are_the_certificates_and_its_spki_hash_is_44_base64_characters() {
        let dir = tempfile::tempdir().unwrap();
        let ca = test_ca_for(&dir.path().join("certs"), "DNS:localhost,IP:127.0.0.1");
        let text = openssl(
            &[
                "x509",
                "-in",
                ca.server_pem.to_str().unwrap(),
                "-noout",
                "-text",
            ],
            dir.path(),
        );
        let text = String::from_utf8_lossy(&text);
        assert!(
            text.contains("DNS:localhost") && text.contains("IP Address:127.0.0.1"),
            "{text}"
        );
        let hash = spki_sha256_b64(&ca.server_pem);
        assert_eq!(hash.len(), 44, "{hash}");
        assert!(hash.ends_with('='), "{hash}");
        // The same key, the same hash; another key, another.
        assert_eq!(spki_sha256_b64(&ca.server_pem), hash);
        assert_ne!(spki_sha256_b64(&ca.ca_pem), hash);
    }
}
