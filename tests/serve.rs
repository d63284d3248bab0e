//! `benchsite serve` end to end: the real binary over a temporary copy of the project, read
//! through raw HTTP requests and a websocket client, as a browser would.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use support::Project;

/// How long anything may take before the test gives up; generous for a loaded CI machine.
const PATIENCE: Duration = Duration::from_secs(20);

/// A running `benchsite serve` and the lines it prints.
struct Served {
    child: Child,
    addr: SocketAddr,
    lines: mpsc::Receiver<String>,
    /// Every line read so far.
    printed: Vec<String>,
}

impl Served {
    fn start(project: &Project, port: u16) -> Self {
        Self::start_with(project, port, &[], &[])
    }

    fn start_with(project: &Project, port: u16, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_benchsite"))
            .args(["serve", "--root", project.root_str(), "--debounce", "20"])
            .args(["--port", &port.to_string()])
            .args(args)
            .envs(env.iter().copied())
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (send, lines) = mpsc::channel();
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let send = send.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { return };
                    if send.send(line).is_err() {
                        return;
                    }
                }
            });
        }
        let mut served = Self {
            child,
            addr: "127.0.0.1:1".parse().unwrap(),
            lines,
            printed: Vec::new(),
        };
        let line = served.wait_for_line("serving http://");
        let url = line.trim_start_matches("serving http://");
        served.addr = url.trim_end_matches('/').parse().unwrap();
        served
    }

    /// Waits for a printed line containing `text`, returning it.
    fn wait_for_line(&mut self, text: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.printed.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(_) => break,
            }
        }
        panic!(
            "no line with {text:?}; printed:\n{}",
            self.printed.join("\n")
        );
    }

    fn get(&self, path: &str) -> Response {
        get(self.addr, path)
    }

    fn socket(&self) -> Socket {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let url = format!("ws://{}{}", self.addr, benchsite::serve::LIVERELOAD);
        let (socket, _) = tungstenite::client(url, stream).unwrap();
        let mut socket = Socket(socket);
        let hello = socket.next();
        assert!(hello["build"].is_u64(), "{hello}");
        socket
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Socket(tungstenite::WebSocket<TcpStream>);

impl Socket {
    /// The next message, as JSON.
    fn next(&mut self) -> serde_json::Value {
        loop {
            match self.0.read().expect("a message before the timeout") {
                tungstenite::Message::Text(text) => return serde_json::from_str(&text).unwrap(),
                tungstenite::Message::Close(_) => panic!("the server closed the socket"),
                _ => {}
            }
        }
    }
}

struct Response {
    status: u16,
    headers: String,
    body: String,
}

/// One raw HTTP/1.1 request: the path is sent exactly as given, as an attacker would.
fn get(addr: SocketAddr, path: &str) -> Response {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (headers, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = headers
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {headers:?}"));
    Response {
        status,
        headers: headers.to_ascii_lowercase(),
        body: body.to_owned(),
    }
}

fn append(project: &Project, relative: &str, text: &str) {
    let path = project.root.path().join(relative);
    let mut old = std::fs::read_to_string(&path).unwrap();
    old.push_str(text);
    std::fs::write(path, old).unwrap();
}

#[test]
fn an_edit_is_served_and_open_pages_are_told_to_reload() {
    let project = Project::copy_of_repo();
    let served = Served::start(&project, 0);
    let page = served.get("/method/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains(benchsite::serve::LIVERELOAD));
    let mut socket = served.socket();

    append(
        &project,
        "content/method.md",
        "\nA sentence added while serving.\n",
    );
    let message = socket.next();
    assert_eq!(message["build"], 2, "{message}");
    assert!(message["error"].is_null(), "{message}");
    assert!(
        served
            .get("/method/")
            .body
            .contains("A sentence added while serving.")
    );

    // An editor's save by rename: a temporary file renamed over the page.
    let path = project.root.path().join("content/method.md");
    let text = std::fs::read_to_string(&path).unwrap() + "\nSaved by rename.\n";
    let temp = project.root.path().join("content/.method.md.swp");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(&temp, &path).unwrap();
    assert_eq!(socket.next()["build"], 3);
    assert!(served.get("/method/").body.contains("Saved by rename."));

    assert!(
        !project.root.path().join("site").exists(),
        "serve writes nothing into site/"
    );
}

#[test]
fn a_broken_data_file_shows_the_pointer_and_keeps_the_last_good_site() {
    let project = Project::copy_of_repo();
    let mut served = Served::start(&project, 0);
    let mut socket = served.socket();
    let path = project.root.path().join("data/results.json");
    let good = std::fs::read_to_string(&path).unwrap();
    let good_home = served.get("/").body;
    assert!(good_home.contains("const error = null;"));

    let broken = good.replacen("\"decode_tok_s\": 289.0", "\"decode_tok_s\": \"fast\"", 1);
    assert_ne!(broken, good);
    std::fs::write(&path, broken).unwrap();
    let message = socket.next();
    let error = message["error"].as_str().expect("an error message");
    assert!(error.contains("/runs/0/decode_tok_s"), "{error}");
    assert!(error.contains("data/results.json:46:7"), "{error}");
    assert!(error.contains("expected a number"), "{error}");
    served.wait_for_line("/runs/0/decode_tok_s");

    let home = served.get("/");
    assert_eq!(home.status, 200, "the last good site is still served");
    assert!(
        home.body.contains("/runs/0/decode_tok_s"),
        "the overlay's text"
    );
    assert!(home.body.contains("289.0"), "the last good figures");
    assert_eq!(served.get("/runs/").status, 200);

    std::fs::write(&path, good).unwrap();
    let message = socket.next();
    assert!(message["error"].is_null(), "{message}");
    assert_eq!(message["build"], 2);
    let home = served.get("/").body;
    assert!(home.contains("const error = null;"));
    assert!(!home.contains("decode_tok_s"));
}

#[test]
fn a_broken_template_or_shortcode_is_reported_with_its_file() {
    let project = Project::copy_of_repo();
    let served = Served::start(&project, 0);
    let mut socket = served.socket();
    append(&project, "content/method.md", "\n{{ no_such_view() }}\n");
    let error = socket.next()["error"].as_str().unwrap().to_owned();
    assert!(error.contains("content/method.md:"), "{error}");
    assert!(error.contains("unknown shortcode"), "{error}");

    let template = project.root.path().join("templates/page.html");
    let good = support::default_template("templates/page.html");
    std::fs::write(
        &template,
        good.replace("{% endblock main %}", "{% endblock"),
    )
    .unwrap();
    let error = socket.next()["error"].as_str().unwrap().to_owned();
    assert!(error.contains("page.html"), "{error}");
}

#[test]
fn only_the_site_is_served_with_its_content_types() {
    let project = Project::copy_of_repo();
    let served = Served::start(&project, 0);
    for (path, status, content_type) in [
        ("/", 200, "text/html; charset=utf-8"),
        ("/assets/style.css", 200, "text/css; charset=utf-8"),
        ("/assets/benchsite.js", 200, "javascript; charset=utf-8"),
        ("/data/results.json", 200, "application/json"),
        ("/data/runs.csv", 200, "text/csv; charset=utf-8"),
        ("/sitemap.xml", 200, "xml"),
        ("/no/such/page/", 404, "text/html; charset=utf-8"),
    ] {
        let response = served.get(path);
        assert_eq!(response.status, status, "{path}");
        assert!(
            response.headers.contains(content_type),
            "{path}: {}",
            response.headers
        );
    }
    let missing = served.get("/no/such/page/");
    assert!(
        missing.body.contains("Page not found"),
        "the site's 404 page"
    );
    assert!(missing.body.contains(benchsite::serve::LIVERELOAD));
    let redirect = served.get("/runs");
    assert_eq!(redirect.status, 301);
    assert!(redirect.headers.contains("location: /runs/"));

    // Files of the project beside the site: none may come out, however the path is spelled.
    let settings = std::fs::read_to_string(project.root.path().join("benchsite.toml")).unwrap();
    let marker = settings.lines().find(|l| l.starts_with("title")).unwrap();
    for path in [
        "/benchsite.toml",
        "/../benchsite.toml",
        "/runs/../../benchsite.toml",
        "/%2e%2e/benchsite.toml",
        "/..%2fbenchsite.toml",
        "/%2e%2e%2fbenchsite.toml",
        "/..\\benchsite.toml",
        "/..%5cbenchsite.toml",
        "/runs/..%5c..%5cbenchsite.toml",
        "/content/method.md",
        "/../content/method.md",
        "/%2e%2e/data/results.json",
    ] {
        let response = served.get(path);
        assert_ne!(response.status, 200, "{path}");
        assert!(!response.body.contains(marker), "{path} leaked a file");
        assert!(
            !response.body.contains("Every figure comes from"),
            "{path} leaked content/"
        );
    }
}

#[test]
fn a_taken_port_moves_to_the_next_free_one() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let project = Project::copy_of_repo();
    let served = Served::start(&project, port);
    assert_ne!(served.addr.port(), port);
    assert!(served.addr.port() > port);
    let note = format!("port {port} is taken; using {}", served.addr.port());
    assert!(served.printed.contains(&note), "{:?}", served.printed);
    assert_eq!(served.get("/").status, 200);
}

#[test]
fn ctrl_c_stops_promptly_with_pages_open() {
    let project = Project::copy_of_repo();
    let mut served = Served::start(&project, 0);
    let _socket = served.socket();
    // The shell's own kill, so no procps is needed.
    let killed = Command::new("sh")
        .args(["-c", &format!("kill -INT {}", served.child.id())])
        .status()
        .unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(status) = served.child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(Instant::now() < deadline, "still running 5 s after Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn open_hands_the_address_to_the_browser() {
    let project = Project::copy_of_repo();
    let opened = project.root.path().join("opened.txt");
    let browser = project.root.path().join("browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$1\" > '{}'\n", opened.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let served = Served::start_with(
        &project,
        0,
        &["--open"],
        &[("BROWSER", browser.to_str().unwrap())],
    );
    let deadline = Instant::now() + PATIENCE;
    while !opened.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let url = std::fs::read_to_string(&opened).expect("the browser was started");
    assert_eq!(url.trim(), format!("http://{}/", served.addr));
}

#[test]
fn a_project_broken_from_the_start_is_served_once_fixed() {
    let project = Project::copy_of_repo();
    let path = project.root.path().join("data/results.json");
    let good = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, &good[..good.len() / 2]).unwrap();
    let served = Served::start(&project, 0);
    let home = served.get("/");
    assert_eq!(home.status, 503);
    assert!(
        home.body.contains("The site has not built yet"),
        "{}",
        home.body
    );
    assert!(
        home.body.contains("data/results.json"),
        "the error is in the page"
    );
    let mut socket = served.socket();
    std::fs::write(&path, &good).unwrap();
    let message = socket.next();
    assert!(message["error"].is_null(), "{message}");
    assert_eq!(served.get("/").status, 200);
}
