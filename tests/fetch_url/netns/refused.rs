//! A table of URL forms that must be refused before any connection: encodings of loopback,
//! private and metadata addresses, mapped IPv6, localhost names, bad schemes, userinfo tricks.

use std::time::Duration;

use crate::harness::Ws;
use crate::net_support::{assert_private_namespace, audit_lines, config, Trap};

use super::fetch;

/// URL forms that must be refused before any connection (policy: allow everything).
const REFUSED: &[(&str, &str)] = &[
    // Loopback, in every spelling the URL parser accepts.
    ("http://127.0.0.1/", "blocked_address"),
    ("http://127.1/", "blocked_address"),
    ("http://127.0.1/", "blocked_address"),
    ("http://0x7f.1/", "blocked_address"),
    ("http://0x7f000001/", "blocked_address"),
    ("http://2130706433/", "blocked_address"),
    ("http://017700000001/", "blocked_address"),
    ("http://0177.0.0.1/", "blocked_address"),
    ("http://0x7f.0x0.0x0.0x1/", "blocked_address"),
    ("http://127.000.000.001/", "blocked_address"),
    ("http://127.0.0.1./", "blocked_address"),
    ("http://%31%32%37.0.0.1/", "blocked_address"),
    ("http://127.0.0.1:8080/", "blocked_address"),
    ("http://127.255.255.254/", "blocked_address"),
    ("https://127.0.0.1/", "blocked_address"),
    ("HTTP://127.0.0.1/", "blocked_address"),
    ("HtTpS://127.0.0.1:443/", "blocked_address"),
    ("  http://127.0.0.1/  ", "blocked_address"),
    ("\thttp://127.0.0.1/\n", "blocked_address"),
    ("http://127.0.\t0.1/", "blocked_address"),
    ("http:\\\\127.0.0.1\\", "blocked_address"),
    ("http:/127.0.0.1/", "blocked_address"),
    ("http:127.0.0.1/", "blocked_address"),
    ("http:///127.0.0.1/", "blocked_address"),
    ("http://１２７.０.０.１/", "blocked_address"),
    ("http://127。0。0。1/", "blocked_address"),
    ("http://[::1]/", "blocked_address"),
    ("http://[0:0:0:0:0:0:0:1]/", "blocked_address"),
    ("http://[::1]:8080/", "blocked_address"),
    ("http://[::ffff:127.0.0.1]/", "blocked_address"),
    ("http://[::ffff:7f00:1]/", "blocked_address"),
    ("http://[0:0:0:0:0:ffff:127.0.0.1]/", "blocked_address"),
    ("http://[::127.0.0.1]/", "blocked_address"),
    ("http://[::ffff:0:127.0.0.1]/", "blocked_address"),
    ("http://[64:ff9b::127.0.0.1]/", "blocked_address"),
    ("http://[2002:7f00:1::1]/", "blocked_address"),
    ("http://[2001:0:7f00:1::1]/", "blocked_address"),
    // "This host".
    ("http://0.0.0.0/", "blocked_address"),
    ("http://0/", "blocked_address"),
    ("http://0x0/", "blocked_address"),
    ("http://0.0.0.0:8080/", "blocked_address"),
    ("http://[::]/", "blocked_address"),
    ("http://[::]:8080/", "blocked_address"),
    // Names of this machine.
    ("http://localhost/", "blocked_address"),
    ("http://LOCALHOST/", "blocked_address"),
    ("http://localhost./", "blocked_address"),
    ("http://localhost:8080/", "blocked_address"),
    ("https://localhost/", "blocked_address"),
    ("http://app.localhost/", "blocked_address"),
    ("http://a.b.localhost./", "blocked_address"),
    ("http://%6c%6f%63%61%6c%68%6f%73%74/", "blocked_address"),
    ("http://ＬＯＣＡＬＨＯＳＴ/", "blocked_address"),
    ("http://localhost.localdomain/", "blocked_address"),
    ("http://ip6-localhost/", "blocked_address"),
    // Private networks.
    ("http://10.0.0.1/", "blocked_address"),
    ("http://10.255.255.255/", "blocked_address"),
    ("http://012.0.0.1/", "blocked_address"),
    ("http://0xa.0.0.1/", "blocked_address"),
    ("http://167772161/", "blocked_address"),
    ("http://172.16.0.1/", "blocked_address"),
    ("http://172.31.255.255/", "blocked_address"),
    ("http://192.168.0.1/", "blocked_address"),
    ("http://192.168.1.1:8080/", "blocked_address"),
    ("http://0xc0a80001/", "blocked_address"),
    ("http://3232235521/", "blocked_address"),
    ("http://0300.0250.0.1/", "blocked_address"),
    ("http://100.64.0.1/", "blocked_address"),
    ("http://100.127.255.255/", "blocked_address"),
    ("http://192.0.0.1/", "blocked_address"),
    ("http://192.0.2.1/", "blocked_address"),
    ("http://198.18.0.1/", "blocked_address"),
    ("http://198.19.255.255/", "blocked_address"),
    ("http://198.51.100.1/", "blocked_address"),
    ("http://203.0.113.1/", "blocked_address"),
    ("http://224.0.0.1/", "blocked_address"),
    ("http://239.255.255.250/", "blocked_address"),
    ("http://240.0.0.1/", "blocked_address"),
    ("http://255.255.255.255/", "blocked_address"),
    // The cloud metadata endpoint.
    ("http://169.254.169.254/", "blocked_address"),
    ("http://169.254.169.254/latest/meta-data/iam/", "blocked_address"),
    ("http://0xa9fea9fe/", "blocked_address"),
    ("http://2852039166/", "blocked_address"),
    ("http://0251.0376.0251.0376/", "blocked_address"),
    ("http://169.254.43518/", "blocked_address"),
    ("http://0xa9.0xfe.0xa9.0xfe/", "blocked_address"),
    ("http://[::ffff:169.254.169.254]/", "blocked_address"),
    ("http://[::ffff:a9fe:a9fe]/", "blocked_address"),
    ("http://[64:ff9b::a9fe:a9fe]/", "blocked_address"),
    ("http://[64:ff9b:1::a9fe:a9fe]/", "blocked_address"),
    ("http://[2002:a9fe:a9fe::]/", "blocked_address"),
    ("http://[fd00:ec2::254]/", "blocked_address"),
    // IPv6 internal ranges and mapped private IPv4.
    ("http://[fc00::1]/", "blocked_address"),
    ("http://[fd12:3456::1]/", "blocked_address"),
    ("http://[fe80::1]/", "blocked_address"),
    ("http://[fec0::1]/", "blocked_address"),
    ("http://[ff02::1]/", "blocked_address"),
    ("http://[2001:db8::1]/", "blocked_address"),
    ("http://[::ffff:10.0.0.1]/", "blocked_address"),
    ("http://[::ffff:192.168.1.1]/", "blocked_address"),
    ("http://[64:ff9b:1::a00:1]/", "blocked_address"),
    ("http://[fe80::1%25lo]/", "invalid_arguments"),
    // Userinfo tricks: the real host is after the last `@`, and credentials are refused.
    ("http://example.com@127.0.0.1/", "invalid_arguments"),
    ("http://user:pass@127.0.0.1/", "invalid_arguments"),
    ("http://127.0.0.1@evil.test/", "invalid_arguments"),
    ("http://evil.test:80@169.254.169.254/", "invalid_arguments"),
    ("http://a@b@127.0.0.1/", "invalid_arguments"),
    ("http://evil.test%40127.0.0.1/", "invalid_arguments"),
    ("http://127.0.0.1#@evil.test/", "blocked_address"),
    ("http://127.0.0.1?@evil.test/", "blocked_address"),
    ("http://evil.test#@8.8.8.8/", "blocked_address"),
    ("http://evil.test\\@8.8.8.8/", "blocked_address"),
    // Schemes other than http and https, and things that are not URLs.
    ("file:///etc/passwd", "network_denied"),
    ("FILE:///etc/passwd", "network_denied"),
    ("ftp://127.0.0.1/", "network_denied"),
    ("gopher://127.0.0.1:70/_x", "network_denied"),
    ("dict://127.0.0.1:11211/stats", "network_denied"),
    ("ldap://127.0.0.1/", "network_denied"),
    ("ws://127.0.0.1/", "network_denied"),
    ("jar:http://127.0.0.1!/", "network_denied"),
    ("javascript:alert(1)", "network_denied"),
    ("data:text/plain,hello", "network_denied"),
    ("view-source:http://127.0.0.1/", "network_denied"),
    ("//127.0.0.1/", "invalid_arguments"),
    ("127.0.0.1", "invalid_arguments"),
    ("", "invalid_arguments"),
    ("http://", "invalid_arguments"),
    ("http://1.2.3.4.5/", "invalid_arguments"),
    ("http://[::1/", "invalid_arguments"),
    // The deny list.
    ("http://denied.test/", "network_denied"),
    ("http://DENIED.test./", "network_denied"),
    ("https://www.denied-zone.test/", "network_denied"),
];

#[test]
#[ignore = "runs inside a private network namespace"]
fn refused_url_forms_never_connect() {
    assert_private_namespace();
    assert!(REFUSED.len() >= 100, "{}", REFUSED.len());
    let trap = Trap::on_ports(&[80, 443, 8080]);
    let ws = Ws::new();
    config(
        &ws.path(),
        "[network]\ndefault = \"allow\"\ndeny = [\"denied.test\", \".denied-zone.test\"]\n",
    );
    let wrong = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for chunk in REFUSED.chunks(REFUSED.len().div_ceil(4)) {
            let (ws, wrong) = (&ws, &wrong);
            scope.spawn(move || {
                for (url, code) in chunk {
                    let out = fetch(ws, url);
                    let got = out.error()["code"].as_str().unwrap_or("ok").to_string();
                    if got != *code {
                        let line = format!("{url:?}: expected {code}, got {got}: {}", out.output());
                        wrong.lock().expect("wrong").push(line);
                        continue;
                    }
                    out.err(code);
                }
            });
        }
    });
    let wrong = wrong.into_inner().expect("wrong");
    std::thread::sleep(Duration::from_millis(300));
    assert!(trap.hits().is_empty(), "connections were made: {:?}", trap.hits());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every refusal is in the audit log, those of URLs that do not parse or carry userinfo too.
    let lines = audit_lines(&ws.path());
    assert_eq!(lines.len(), REFUSED.len());
    assert!(lines
        .iter()
        .all(|l| l["decision"] == "deny" && l["status"].is_null()));
}
