//! Test support for fetch_url: a private network namespace, a tiny std-only HTTP server on a
//! loopback address, and traps that count connections that should never happen.
//!
//! Nothing here may reach past loopback, not even when codesmith is broken: the tests that can
//! open a connection run in a fresh network namespace (only `lo`, and every address routed to
//! it), so an address that slips a gate lands on a trap here instead of a real network.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Set in the environment of the test binary re-executed inside the namespace.
pub(crate) const INNER_ENV: &str = "CODESMITH_TEST_NETNS";

/// The hosts file mounted over /etc/hosts inside the namespace.
pub(crate) const HOSTS: &str = "\
127.0.0.1 localhost
::1 localhost ip6-localhost ip6-loopback
127.0.0.2 good.test prompt.test approve.test
127.0.0.2 mixed.test
127.0.0.3 fallback.test
127.0.0.2 fallback.test
10.0.0.7 mixed.test
127.0.0.2 mixed6.test
::ffff:169.254.169.254 mixed6.test
127.0.0.1 loop.test evil.test
169.254.169.254 meta.test
10.1.2.3 private.test
192.168.1.1 router.test
::1 v6loop.test
::ffff:127.0.0.1 mapped.test
fd00::1 ula.test
100.64.0.1 cgnat.test
";

/// Panics unless this process runs in the private namespace the outer test made: an env mark
/// AND no interface but `lo`. Every test that can open a connection calls this first.
pub(crate) fn assert_private_namespace() {
    assert!(
        std::env::var_os(INNER_ENV).is_some(),
        "this test opens connections; it runs only inside the network namespace made by \
         fetch_url::network_tests_in_a_private_namespace"
    );
    let dev = std::fs::read_to_string("/proc/self/net/dev").expect("/proc/self/net/dev");
    let interfaces: Vec<&str> = dev
        .lines()
        .skip(2)
        .filter_map(|line| line.split(':').next())
        .map(str::trim)
        .collect();
    assert_eq!(interfaces, ["lo"], "not in a private network namespace");
}

/// Whether this machine lets us make namespaces (root, or unprivileged user namespaces).
pub(crate) fn namespaces_available() -> Result<(), String> {
    let probe = Command::new("unshare")
        .args(["--mount", "--net", "--", "sh", "-c", "ip link set lo up"])
        .output();
    match probe {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "`unshare --mount --net` is not permitted here ({}); run as root (CI does)",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(err) => Err(format!("`unshare` could not be run: {err}")),
    }
}

/// Runs the ignored tests whose names contain `filter` in this same test binary, inside a new
/// network and mount namespace. Returns (success, combined output).
pub(crate) fn run_inside_namespace(filter: &str) -> (bool, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, HOSTS).expect("hosts");
    let host_conf = dir.path().join("host.conf");
    std::fs::write(&host_conf, "multi on\n").expect("host.conf");
    let exe = std::env::current_exe().expect("current_exe");
    // Every IPv4 and IPv6 address is routed to `lo` (AnyIP), so a connection to an address
    // that slipped a gate reaches a trap listener of the test rather than failing quietly.
    let script = r#"set -e
ip link set lo up
ip route add local 0.0.0.0/0 dev lo
ip -6 route add local ::/0 dev lo 2>/dev/null || true
mount --bind "$1" /etc/hosts
if [ -e /etc/host.conf ]; then mount --bind "$2" /etc/host.conf; fi
shift 2
exec "$@"
"#;
    let out = Command::new("unshare")
        .args(["--mount", "--net", "--", "sh", "-c", script, "sh"])
        .arg(&hosts)
        .arg(&host_conf)
        .arg(&exe)
        .args([filter, "--ignored", "--test-threads=4"])
        .env(INNER_ENV, "1")
        .output()
        .expect("run unshare");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// A canned HTTP reply.
pub(crate) enum Reply {
    /// Status, extra headers, body.
    Full(u16, Vec<(String, String)>, Vec<u8>),
    /// The whole response as bytes, sent as it is (headers that are not text, odd framing).
    Raw(Vec<u8>),
    /// Status 200, no length, the same chunk forever (until the client goes away or `limit`).
    Endless { chunk: Vec<u8>, limit: usize },
    /// Headers and `first` at once, then one byte every `every` for `count` bytes.
    Slow {
        first: Vec<u8>,
        every: Duration,
        count: usize,
    },
}

pub(crate) fn html(status: u16, body: &str) -> Reply {
    Reply::Full(
        status,
        vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
        body.as_bytes().to_vec(),
    )
}

/// A response with these header lines (raw bytes, `\r\n` added) and an empty body.
pub(crate) fn raw_head(status_line: &str, headers: &[&[u8]]) -> Reply {
    let mut bytes = format!("{status_line}\r\n").into_bytes();
    for header in headers {
        bytes.extend_from_slice(header);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(b"Content-Length: 0\r\nConnection: close\r\n\r\n");
    Reply::Raw(bytes)
}

pub(crate) fn redirect(status: u16, location: &str) -> Reply {
    Reply::Full(status, vec![("Location".into(), location.into())], Vec::new())
}

type Handler = dyn Fn(&str, SocketAddr) -> Reply + Send + Sync;

/// A request as the server received it: method, path (with the query), headers (names in
/// lower case) and body.
#[derive(Debug, Clone, Default)]
pub(crate) struct Received {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// A tiny HTTP/1.1 server (one thread per connection, `Connection: close`).
pub(crate) struct Server {
    pub addr: SocketAddr,
    pub connections: Arc<AtomicUsize>,
    pub bytes_sent: Arc<AtomicUsize>,
    pub paths: Arc<Mutex<Vec<String>>>,
    pub received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    pub(crate) fn start(
        ip: &str,
        handler: impl Fn(&str, SocketAddr) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind((ip, 0)).expect("bind test server");
        let addr = listener.local_addr().expect("addr");
        let connections = Arc::new(AtomicUsize::new(0));
        let bytes_sent = Arc::new(AtomicUsize::new(0));
        let paths = Arc::new(Mutex::new(Vec::new()));
        let received = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let (c, b, p, r) = (
            connections.clone(),
            bytes_sent.clone(),
            paths.clone(),
            received.clone(),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                c.fetch_add(1, Ordering::SeqCst);
                let (handler, b, p, r) = (handler.clone(), b.clone(), p.clone(), r.clone());
                std::thread::spawn(move || serve(stream, addr, &*handler, &b, (&p, &r)));
            }
        });
        Server {
            addr,
            connections,
            bytes_sent,
            paths,
            received,
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The URL with a host name instead of the address (resolved through the test hosts file).
    pub(crate) fn url_for(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.addr.port())
    }

    pub(crate) fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// The requests received so far, in order.
    pub(crate) fn requests(&self) -> Vec<Received> {
        self.received.lock().expect("received").clone()
    }
}

/// A request's headers, names in lowercase, up to the blank line.
fn read_headers(reader: &mut BufReader<TcpStream>) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {
                if let Some((name, value)) = line.split_once(':') {
                    headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
                }
            }
        }
    }
    headers
}

fn serve(
    stream: TcpStream,
    addr: SocketAddr,
    handler: &Handler,
    sent: &AtomicUsize,
    (paths, received): (&Mutex<Vec<String>>, &Mutex<Vec<Received>>),
) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let headers = read_headers(&mut reader);
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length.min(1 << 20)];
    let _ = std::io::Read::read_exact(&mut reader, &mut body);
    let mut words = request_line.split_whitespace();
    let method = words.next().unwrap_or_default().to_string();
    let path = words.next().unwrap_or("/").to_string();
    paths.lock().expect("paths").push(path.clone());
    received.lock().expect("received").push(Received {
        method,
        path: path.clone(),
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let mut stream = stream;
    let mut write = |bytes: &[u8]| -> bool {
        match stream.write_all(bytes) {
            Ok(()) => {
                sent.fetch_add(bytes.len(), Ordering::SeqCst);
                true
            }
            Err(_) => false,
        }
    };
    match handler(&path, addr) {
        Reply::Full(status, headers, body) => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str(&format!(
                "Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            ));
            let _ = write(head.as_bytes()) && write(&body);
        }
        Reply::Raw(bytes) => {
            let _ = write(&bytes);
        }
        Reply::Endless { chunk, limit } => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n";
            if write(head.as_bytes()) {
                let mut total = 0;
                while total < limit && write(&chunk) {
                    total += chunk.len();
                }
            }
        }
        Reply::Slow { first, every, count } => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n";
            if write(head.as_bytes()) && write(&first) {
                for _ in 0..count {
                    std::thread::sleep(every);
                    if !write(b"x") {
                        break;
                    }
                }
            }
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        401 => "Unauthorized",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    }
}

/// Listeners that count every connection made to them: placed where a refused URL would go.
pub(crate) struct Trap {
    hits: Arc<Mutex<Vec<String>>>,
}

impl Trap {
    /// Listens on every address (IPv6 dual-stack when available) at each port.
    pub(crate) fn on_ports(ports: &[u16]) -> Trap {
        let hits = Arc::new(Mutex::new(Vec::new()));
        for &port in ports {
            let listener = TcpListener::bind(("::", port))
                .or_else(|_| TcpListener::bind(("0.0.0.0", port)))
                .unwrap_or_else(|e| panic!("trap on port {port}: {e}"));
            Trap::watch(listener, hits.clone());
        }
        Trap { hits }
    }

    /// Listens on one address.
    pub(crate) fn at(addr: &str) -> (Trap, SocketAddr) {
        let hits = Arc::new(Mutex::new(Vec::new()));
        let listener = TcpListener::bind(addr).unwrap_or_else(|e| panic!("trap at {addr}: {e}"));
        let local = listener.local_addr().expect("addr");
        Trap::watch(listener, hits.clone());
        (Trap { hits }, local)
    }

    fn watch(listener: TcpListener, hits: Arc<Mutex<Vec<String>>>) {
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let local = stream.local_addr().map(|a| a.to_string()).unwrap_or_default();
                hits.lock().expect("hits").push(local);
            }
        });
    }

    pub(crate) fn hits(&self) -> Vec<String> {
        self.hits.lock().expect("hits").clone()
    }
}

/// Writes `.codesmith/config.toml` in the workspace at `root`.
pub(crate) fn config(root: &Path, text: &str) {
    std::fs::create_dir_all(root.join(".codesmith")).expect("mkdir");
    std::fs::write(root.join(".codesmith/config.toml"), text).expect("config");
}

/// The audit log's lines as JSON values.
pub(crate) fn audit_lines(root: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(root.join(".codesmith/audit.log"))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("audit line is JSON"))
        .collect()
}

/// The outer test of a suite of namespace tests: runs the tests under `filter` inside a private
/// network namespace and requires all `expected` of them to pass. Where namespaces cannot be
/// made it says so and passes, unless CODESMITH_REQUIRE_NETNS makes that a failure; inside the
/// namespace it does nothing (the inner run is the real one).
pub(crate) fn run_suite_in_namespace(what: &str, filter: &str, expected: usize) {
    if std::env::var_os(INNER_ENV).is_some() {
        return;
    }
    if let Err(reason) = namespaces_available() {
        assert!(
            std::env::var_os("CODESMITH_REQUIRE_NETNS").is_none(),
            "CODESMITH_REQUIRE_NETNS is set but {reason}"
        );
        eprintln!("SKIPPED the {what} network tests: {reason}");
        return;
    }
    let (ok, text) = run_inside_namespace(filter);
    assert!(ok, "{what} network tests failed inside the namespace:\n{text}");
    let passed = text
        .lines()
        .find_map(|line| line.strip_prefix("test result: ok. "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    assert_eq!(passed, expected, "not every namespace test ran:\n{text}");
}
