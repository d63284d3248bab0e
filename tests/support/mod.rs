//! Test support: temporary report projects and running the real binary.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root, where the shipped project lives.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `tests/support/setup.sh what` once per test binary: it installs what the tests of
/// `what` (`browser`, `python`) need where it is missing and prints the program to use
/// (chromium, or the Python with llama-cpp-python), returned here; when something cannot be
/// installed the test fails with the script's account of what is missing.
pub fn setup(what: &'static str) -> String {
    static DONE: std::sync::Mutex<BTreeMap<&'static str, String>> =
        std::sync::Mutex::new(BTreeMap::new());
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(program) = done.get(what) {
        return program.clone();
    }
    let output = Command::new("bash")
        .arg(repo().join("tests/support/setup.sh"))
        .arg(what)
        .stderr(std::process::Stdio::inherit())
        .output()
        .expect("bash runs");
    assert!(
        output.status.success(),
        "tests/support/setup.sh {what} could not provide what these tests need (its message is above)"
    );
    let program = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    done.insert(what, program.clone());
    program
}

/// A port of 127.0.0.1 nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A proxy in front of `upstream` that keeps connections alive as a client expects and then
/// closes each under the second request sent on it, before any byte of the answer: what a
/// server that closes kept-alive connections on its own schedule (cpp-httplib) does to a
/// client that reuses one at the wrong moment. `closed` counts the requests it dropped.
pub struct StaleProxy {
    pub addr: std::net::SocketAddr,
    pub closed: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl StaleProxy {
    pub fn start(upstream: std::net::SocketAddr) -> Self {
        use std::io::{Read, Write};
        use std::net::{Shutdown, TcpListener, TcpStream};
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let closed = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&closed);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(mut client) = client else { break };
                let Ok(mut server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let answered = Arc::new(AtomicBool::new(false));
                let (mut client_out, mut server_in) =
                    (client.try_clone().unwrap(), server.try_clone().unwrap());
                let seen = Arc::clone(&answered);
                // The answer, back to the client.
                std::thread::spawn(move || {
                    let mut buffer = [0u8; 16384];
                    while let Ok(n @ 1..) = server_in.read(&mut buffer) {
                        seen.store(true, Ordering::SeqCst);
                        if client_out.write_all(&buffer[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = client_out.shutdown(Shutdown::Both);
                });
                let count = Arc::clone(&count);
                // The requests, on to the server; the first byte of a second one closes both.
                std::thread::spawn(move || {
                    let mut buffer = [0u8; 16384];
                    while let Ok(n @ 1..) = client.read(&mut buffer) {
                        if answered.load(Ordering::SeqCst) {
                            count.fetch_add(1, Ordering::SeqCst);
                            break;
                        }
                        if server.write_all(&buffer[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = client.shutdown(Shutdown::Both);
                    let _ = server.shutdown(Shutdown::Both);
                });
            }
        });
        StaleProxy { addr, closed }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn closed(&self) -> usize {
        self.closed.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// An HTTPS endpoint in front of `upstream` (a TLS ingress, as rustls terminates it), with a
/// certificate for 127.0.0.1 and localhost signed by a private authority made for it:
/// `ca_pem` is that authority's certificate.
pub struct TlsProxy {
    pub addr: std::net::SocketAddr,
    pub ca_pem: String,
}

impl TlsProxy {
    pub fn start(upstream: std::net::SocketAddr) -> Self {
        use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut authority = CertificateParams::new(Vec::<String>::new()).unwrap();
        authority.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let authority =
            CertifiedIssuer::self_signed(authority, KeyPair::generate().unwrap()).unwrap();
        let key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .unwrap()
            .signed_by(&key, &authority)
            .unwrap();
        let config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(
                vec![leaf.der().clone()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
        let addr = on_a_thread(move |listener| async move {
            while let Ok((client, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                // Without Nagle's algorithm, as ingresses run: it holds a small write
                // back until the last is acknowledged, and a stream's chunks with it.
                let _ = client.set_nodelay(true);
                tokio::spawn(async move {
                    let Ok(client) = acceptor.accept(client).await else {
                        return;
                    };
                    let Ok(server) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    let _ = server.set_nodelay(true);
                    // Each read passed on and flushed at once, as a TLS terminator that
                    // does not buffer does: a TLS stream holds what it is given until
                    // flushed, which would deliver a stream's chunks in bursts.
                    let (mut client_in, mut client_out) = tokio::io::split(client);
                    let (mut server_in, mut server_out) = server.into_split();
                    let _ = tokio::join!(
                        relay(&mut client_in, &mut server_out),
                        relay(&mut server_in, &mut client_out)
                    );
                });
            }
        });
        TlsProxy {
            addr,
            ca_pem: authority.pem(),
        }
    }

    pub fn url(&self) -> String {
        format!("https://{}", self.addr)
    }
}

/// Runs `serve` on a listener of a free port of 127.0.0.1, on a thread of its own with a
/// runtime of two workers; the listener's address.
fn on_a_thread<F, Fut>(serve: F) -> std::net::SocketAddr
where
    F: FnOnce(tokio::net::TcpListener) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            serve(tokio::net::TcpListener::from_std(listener).unwrap()).await;
        });
    });
    addr
}

/// Copies `from` to `to`, flushing after every read, until either ends.
async fn relay(
    from: &mut (impl tokio::io::AsyncRead + Unpin),
    to: &mut (impl tokio::io::AsyncWrite + Unpin),
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buffer = vec![0u8; 16384];
    while let Ok(n @ 1..) = from.read(&mut buffer).await {
        if to.write_all(&buffer[..n]).await.is_err() || to.flush().await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

/// An HTTP proxy in front of `upstream` that holds each answer until it is whole and then
/// sends it at once: what a buffering reverse proxy (nginx's default `proxy_buffering on`)
/// does to a stream, and the extreme of a starved API server.
pub struct BufferingProxy {
    pub addr: std::net::SocketAddr,
}

impl BufferingProxy {
    pub fn start(upstream: std::net::SocketAddr) -> Self {
        use axum::body::Body;
        use axum::extract::{Request, State};
        use axum::response::Response;
        async fn hold(State(upstream): State<String>, request: Request) -> Response {
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
            let mut forward = reqwest::Client::new()
                .request(parts.method, format!("{upstream}{path}"))
                .body(body);
            for (name, value) in &parts.headers {
                if name != "host" && name != "content-length" {
                    forward = forward.header(name, value);
                }
            }
            let Ok(answer) = forward.send().await else {
                return Response::builder().status(502).body(Body::empty()).unwrap();
            };
            let status = answer.status();
            let kind = answer.headers().get("content-type").cloned();
            let whole = answer.bytes().await.unwrap_or_default();
            let mut response = Response::builder().status(status);
            if let Some(kind) = kind {
                response = response.header("content-type", kind);
            }
            response.body(Body::from(whole)).unwrap()
        }
        let _ = rustls::crypto::ring::default_provider().install_default();
        let app = axum::Router::new()
            .fallback(hold)
            .with_state(format!("http://{upstream}"));
        let addr = on_a_thread(move |listener| async move {
            let _ = axum::serve(listener, app).await;
        });
        BufferingProxy { addr }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// The corpus's valid base document.
pub fn valid_minimal() -> Vec<u8> {
    std::fs::read(repo().join("tests/fixtures/valid/minimal.json")).unwrap()
}

/// A report project in a temporary folder: the shipped settings and profiles, and a results
/// document of the test's choosing.
pub struct Project {
    pub root: tempfile::TempDir,
}

impl Project {
    pub fn with_results(results: &[u8]) -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::copy(
            repo().join("benchsite.toml"),
            root.path().join("benchsite.toml"),
        )
        .unwrap();
        let profiles = root.path().join("profiles");
        std::fs::create_dir(&profiles).unwrap();
        for entry in std::fs::read_dir(repo().join("profiles")).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, profiles.join(path.file_name().unwrap())).unwrap();
        }
        std::fs::create_dir(root.path().join("data")).unwrap();
        std::fs::write(root.path().join("data/results.json"), results).unwrap();
        Self { root }
    }

    /// A copy of the shipped report project: settings, profiles, data, content, templates.
    pub fn copy_of_repo() -> Self {
        let project = Self::with_results(&std::fs::read(repo().join("data/results.json")).unwrap());
        for folder in ["content", "templates"] {
            copy_dir(&repo().join(folder), &project.root.path().join(folder));
        }
        project
    }

    /// Writes a file of the project, creating its folder.
    pub fn write(&self, relative: &str, text: &str) {
        let path = self.root.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Reads a built page of `site/` as text.
    pub fn page(&self, relative: &str) -> String {
        let path = self.root.path().join("site").join(relative);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    pub fn root_str(&self) -> &str {
        self.root.path().to_str().unwrap()
    }

    /// Every file of the project with its bytes.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        walk(self.root.path())
            .into_iter()
            .map(|path| {
                let bytes = std::fs::read(&path).unwrap();
                (
                    path.strip_prefix(self.root.path()).unwrap().to_owned(),
                    bytes,
                )
            })
            .collect()
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    for path in walk(from) {
        let target = to.join(path.strip_prefix(from).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&path, &target).unwrap();
    }
}

/// Every file below `dir`.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// The output of one run of the binary, as text.
pub struct Output {
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the real `benchsite` binary.
pub fn run_benchsite(args: &[&str]) -> Output {
    output_of(Command::new(env!("CARGO_BIN_EXE_benchsite")).args(args))
}

/// Runs the binary on the shipped project of the repository (`--root` it).
pub fn run_in_repo(args: &[&str]) -> Output {
    output_of(
        Command::new(env!("CARGO_BIN_EXE_benchsite"))
            .arg("--root")
            .arg(repo())
            .args(args),
    )
}

impl Output {
    /// Asserts that the command succeeded, showing what it printed when it did not.
    #[track_caller]
    pub fn assert_success(&self) -> &Self {
        assert!(
            self.status.success(),
            "the command failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
            self.status,
            self.stdout,
            self.stderr
        );
        self
    }
}

impl Project {
    /// Runs the binary on this project (`--root` it).
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[])
    }

    /// Runs the binary on this project with extra environment variables; no API key from the
    /// caller's environment.
    pub fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        output_of(
            Command::new(env!("CARGO_BIN_EXE_benchsite"))
                .arg("--root")
                .arg(self.root.path())
                .args(args)
                .env_remove("BENCHSITE_API_KEY")
                .env_remove("OPENAI_API_KEY")
                .envs(env.iter().copied()),
        )
    }

    /// The project's results document.
    pub fn results(&self) -> benchsite::data::Results {
        benchsite::data::load(&self.root.path().join("data/results.json")).unwrap()
    }
}

fn output_of(command: &mut Command) -> Output {
    let output = command.env("NO_COLOR", "1").output().unwrap();
    Output {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The built-in default of a project file `templates/<name>` (a template, or `static/<file>`).
pub fn default_template(relative: &str) -> String {
    let name = relative.strip_prefix("templates/").unwrap_or(relative);
    benchsite::site::DEFAULT_TEMPLATES
        .iter()
        .copied()
        .chain(
            benchsite::site::DEFAULT_STATIC
                .iter()
                .map(|(n, t)| (*n, *t)),
        )
        .find(|(n, _)| *n == name || format!("static/{n}") == name)
        .map(|(_, text)| text.to_owned())
        .unwrap_or_else(|| panic!("no default {relative}"))
}
