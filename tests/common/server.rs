//! `guarded explore` started for a test: on a free port of 127.0.0.1,
//! stopped when dropped, with a small HTTP client for its JSON API.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// A running explorer; its API is called through [`Client`]'s methods.
pub struct Server {
    child: Child,
    client: Client,
}

/// A client of an explorer's API.
#[derive(Clone)]
pub struct Client {
    /// `127.0.0.1:PORT`.
    pub address: String,
}

impl std::ops::Deref for Server {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Server {
    /// `guarded explore ARGS --port 0`, once it says where it serves.
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_guarded"))
            .arg("explore")
            .args(args)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("guarded starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("it says where it serves");
        let address = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| {
                let mut err = String::new();
                let _ = child.stderr.take().map(|mut e| e.read_to_string(&mut err));
                panic!("no address in {line:?}; stderr: {err}")
            })
            .to_string();
        Server {
            child,
            client: Client { address },
        }
    }
}

impl Server {
    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends it Ctrl-C (SIGINT) and waits for it to end; its exit status.
    pub fn interrupt(&mut self) -> std::process::ExitStatus {
        Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        self.child.wait().expect("it ends")
    }
}

impl Client {
    /// The page's address.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// A raw request: status and body.
    pub fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.address).expect("connects");
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.address,
            body.len()
        )
        .expect("writes");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("reads");
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status");
        (status, body.to_string())
    }

    /// `POST /api/NAME` with a JSON body: status and JSON answer.
    pub fn call(&self, name: &str, body: Value) -> (u16, Value) {
        let (status, text) = self.request("POST", &format!("/api/{name}"), &body.to_string());
        let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (status, value)
    }

    /// A call that must succeed.
    pub fn ok(&self, name: &str, body: Value) -> Value {
        let (status, answer) = self.call(name, body.clone());
        assert_eq!(status, 200, "{name} {body}: {answer}");
        answer
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
