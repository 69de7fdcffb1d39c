//! Front end: `guarded explore`, an explorer in the browser. A local web
//! server (tiny_http: synchronous and small, which is all one user on
//! 127.0.0.1 needs; no async runtime to carry) serves one page, embedded
//! in the binary, and a JSON API the page calls (docs/explore.md). Each
//! page is a session: an [`Exploration`](session::Exploration) of the instance the command line
//! set up, where the user chooses the next move among those the daemon
//! allows, goes back, branches, evaluates expressions, edits the program
//! and runs `verify` on it.

mod api;
mod launch;
mod session;
mod verify_job;
mod view;

pub use launch::{parse_daemon, Launch};
pub use session::MOST_STEPS_A_RUN;

use std::io::Read;

/// How the server was asked to run.
pub struct Options {
    /// The exploration every new session starts as.
    pub launch: Launch,
    /// The program's text as read at the start.
    pub source: String,
    /// The address to bind (`127.0.0.1` unless told otherwise).
    pub host: String,
    /// The port (`0`: a free one).
    pub port: u16,
    /// Open the page in the browser.
    pub open: bool,
    /// A path every new session opens: its name, init file and schedule.
    pub witness: Option<(String, String, String)>,
}

/// The largest request body taken: a program text and some.
const MOST_BODY_BYTES: u64 = 8 << 20;

/// The page and its script and style.
const PAGE: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("page/index.html"),
    ),
    (
        "/explore.js",
        "text/javascript; charset=utf-8",
        include_str!("page/explore.js"),
    ),
    (
        "/explore.css",
        "text/css; charset=utf-8",
        include_str!("page/explore.css"),
    ),
];

/// Serves until the process is stopped (Ctrl-C); or says why it cannot
/// start.
pub fn serve(options: Options) -> Result<(), String> {
    // The first session is built now, so that a program that cannot start
    // is reported before a page is served.
    let api = api::Api::new(options.launch, options.source, options.witness)?;
    let address = format!("{}:{}", options.host, options.port);
    let server = tiny_http::Server::http(&address)
        .map_err(|e| format!("error: cannot listen on {address}: {e}"))?;
    let url = match server.server_addr().to_ip() {
        Some(a) => format!("http://{a}/"),
        None => format!("http://{address}/"),
    };
    // Ctrl-C stops the server: the folders of verify runs go with it.
    let _ = ctrlc::set_handler(|| {
        verify_job::clean_up();
        std::process::exit(0);
    });
    println!("guarded explore: serving {url} (Ctrl-C stops)");
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    if options.open {
        open_browser(&url);
    }
    // A few workers: a long request of one session (a run of many
    // steps) does not hold the others'.
    let (server, api) = (std::sync::Arc::new(server), std::sync::Arc::new(api));
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (server, api) = (server.clone(), api.clone());
            std::thread::Builder::new()
                .stack_size(WORKER_STACK)
                .spawn(move || {
                    while let Ok(request) = server.recv() {
                        respond(&api, request);
                    }
                })
        })
        .collect::<Result<_, _>>()
        .map_err(|e| format!("error: cannot start the server's threads: {e}"))?;
    for w in workers {
        let _ = w.join();
    }
    Ok(())
}

/// How many requests are served at once.
const WORKERS: usize = 4;

/// The stack of a worker, which checks and compiles edited programs (the
/// parser and checker bound their recursion; this leaves a wide margin).
const WORKER_STACK: usize = 256 << 20;

/// Answers one request.
fn respond(api: &api::Api, mut request: tiny_http::Request) {
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let path = url.split('?').next().unwrap_or("/").to_string();
    let mut body = String::new();
    let read = request
        .as_reader()
        .take(MOST_BODY_BYTES + 1)
        .read_to_string(&mut body);
    let (status, kind, text) = if read.is_err() {
        api::error(400, "the request's body is not UTF-8 text")
    } else if body.len() as u64 > MOST_BODY_BYTES {
        api::error(413, "the request's body is too large")
    } else if let Some((_, kind, page)) = PAGE.iter().find(|p| p.0 == path) {
        if method == "GET" {
            (200, *kind, page.to_string())
        } else {
            api::error(405, "the page is read with GET")
        }
    } else if let Some(call) = path.strip_prefix("/api/") {
        if method == "POST" {
            // A bug is an error answer, not a worker gone.
            let call = std::panic::AssertUnwindSafe(|| api.handle(call, &body));
            std::panic::catch_unwind(call).unwrap_or_else(|_| {
                api::error(
                    500,
                    "internal error: the explorer failed on this call (a bug; please report it)",
                )
            })
        } else {
            api::error(405, "the API is called with POST and a JSON body")
        }
    } else {
        api::error(404, &format!("nothing is served at `{path}`"))
    };
    let header = tiny_http::Header::from_bytes("Content-Type", kind).expect("a valid header");
    let response = tiny_http::Response::from_string(text)
        .with_status_code(status)
        .with_header(header);
    let _ = request.respond(response);
}

/// Opens `url` in the desktop's browser, if there is one.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if std::process::Command::new(opener).arg(url).spawn().is_err() {
        eprintln!("cannot open a browser ({opener}): open {url} yourself");
    }
}
