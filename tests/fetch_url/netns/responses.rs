//! How response bodies and headers are read: content codings, redirect locations that are not
//! plain ASCII, control characters in bodies.

use std::io::Write;

use serde_json::json;

use crate::harness::Ws;
use crate::net_support::{assert_private_namespace, config, html, raw_head, redirect, Reply, Server};

use super::{fetch, TRUSTED};

const TEXT: &str = "héllo wörld, plain text\n";

fn encoded(coding: &str, body: Vec<u8>) -> Reply {
    Reply::Full(
        200,
        vec![
            ("Content-Type".into(), "text/plain; charset=utf-8".into()),
            ("Content-Encoding".into(), coding.into()),
        ],
        body,
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("zlib");
    encoder.finish().expect("zlib")
}

fn raw_deflate(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("deflate");
    encoder.finish().expect("deflate")
}

fn zeros(len: usize) -> Vec<u8> {
    vec![b'0'; len]
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn content_codings_are_decoded_whatever_their_spelling() {
    assert_private_namespace();
    let server = Server::start("127.0.0.2", |path, _| match path {
        "/upper" => encoded("GZIP", gzip(TEXT.as_bytes())),
        "/x-gzip" => encoded("x-gzip", gzip(TEXT.as_bytes())),
        "/stacked" => encoded("gzip, gzip", gzip(&gzip(TEXT.as_bytes()))),
        "/zlib" => encoded("deflate", zlib(TEXT.as_bytes())),
        "/raw-deflate" => encoded("Deflate", raw_deflate(TEXT.as_bytes())),
        "/mixed" => encoded("deflate, gzip", gzip(&zlib(TEXT.as_bytes()))),
        "/br" => encoded("br", b"\x1b\x03\x00\xf8\xa5\x40\x02".to_vec()),
        "/corrupt" => encoded("gzip", b"this is not gzip at all".to_vec()),
        "/bomb" => encoded("deflate", zlib(&zeros(8 << 20))),
        _ => Reply::Full(404, Vec::new(), Vec::new()),
    });
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    for path in ["/upper", "/x-gzip", "/stacked", "/zlib", "/raw-deflate", "/mixed"] {
        let out = fetch(&ws, &server.url(path)).ok();
        assert!(out.output().contains(TEXT.trim_end()), "{path}: {}", out.output());
        assert_eq!(out.data()["charset"], "UTF-8", "{path}");
    }
    // A coding it cannot undo is named, never shown as noise.
    let out = fetch(&ws, &server.url("/br")).err("io_error");
    assert!(
        out.message().contains("Content-Encoding `br`"),
        "{}",
        out.message()
    );
    assert!(out.message().contains("use another source"), "{}", out.message());
    let out = fetch(&ws, &server.url("/corrupt")).err("io_error");
    assert!(out.message().contains("does not decompress"), "{}", out.message());
    // The cap holds on decoded bytes.
    let out = ws
        .call(
            "fetch_url",
            json!({"url": server.url("/bomb"), "max_bytes": 4000}),
        )
        .ok();
    assert_eq!(out.data()["truncated"], true);
    assert_eq!(out.data()["bytes"], 4000);
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn locations_that_are_not_ascii_are_percent_encoded_and_followed() {
    assert_private_namespace();
    let server = Server::start("127.0.0.2", |path, addr| {
        let absolute = format!("Location: http://{addr}/\u{fc}n\u{ef}");
        match path {
            "/utf8" => raw_head("HTTP/1.1 302 Found", &[b"Location: /t\xc3\xa9st path"]),
            "/latin1" => raw_head("HTTP/1.1 301 Moved Permanently", &[b"Location: /caf\xe9"]),
            "/absolute" => raw_head("HTTP/1.1 307 Temporary Redirect", &[absolute.as_bytes()]),
            "/none" => raw_head("HTTP/1.1 302 Found", &[]),
            "/empty" => raw_head("HTTP/1.1 303 See Other", &[b"Location:  "]),
            _ => html(200, &format!("<p>arrived at {path}</p>")),
        }
    });
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    for (from, to) in [
        ("/utf8", "/t%C3%A9st%20path"),
        ("/latin1", "/caf%E9"),
        ("/absolute", "/%C3%BCn%C3%AF"),
    ] {
        let out = fetch(&ws, &server.url(from)).ok();
        assert!(
            out.output().contains(&format!("arrived at {to}")),
            "{from}: {}",
            out.output()
        );
        assert_eq!(out.data()["final_url"], server.url(to), "{from}");
        assert_eq!(
            out.data()["redirects"].as_array().map(Vec::len),
            Some(1),
            "{from}"
        );
    }
    for from in ["/none", "/empty"] {
        let out = fetch(&ws, &server.url(from)).ok();
        assert!(
            out.notices().iter().any(
                |n| n.contains("without a usable Location header, so the redirect could not be followed")
            ),
            "{from}: {:?}",
            out.notices()
        );
    }
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn the_deep_page_fallback_skips_comments_and_quoted_brackets_and_decodes_references() {
    assert_private_namespace();
    let server = Server::start("127.0.0.2", |path, _| match path {
        "/commented" => html(200, &format!("<!-- {} -->ok", "<div>".repeat(100_000))),
        "/deep" => html(
            200,
            &format!(
                "{}caf&eacute; &#x41;&#66; &hellip;<!-- <b>hidden</b> -->",
                "<div a=\">\">".repeat(2000)
            ),
        ),
        _ => html(404, ""),
    });
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch(&ws, &server.url("/commented")).ok();
    assert_eq!(out.data()["format"], "markdown", "{}", out.output());
    assert!(out.output().ends_with("\n\nok"), "{}", out.output());
    assert!(!out.output().contains("<!--"), "{}", out.output());
    let out = fetch(&ws, &server.url("/deep")).ok();
    assert_eq!(out.data()["format"], "text", "{}", out.output());
    assert!(out.output().ends_with("\n\ncafé AB …"), "{}", out.output());
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn control_characters_in_a_body_are_removed() {
    assert_private_namespace();
    let body = b"red \x1b[31mALERT\x1b[0m\x1b]0;pwned\x07 bell\x07 nul\0 cr\r\n\tindented\n".to_vec();
    let server = Server::start("127.0.0.2", move |path, _| match path {
        "/html" => html(200, "<p>a\u{1b}[2Jb\u{7}c</p>"),
        _ => Reply::Full(
            200,
            vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
            body.clone(),
        ),
    });
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    for format in ["markdown", "text", "raw"] {
        let out = ws
            .call(
                "fetch_url",
                json!({"url": server.url("/plain"), "format": format}),
            )
            .ok();
        assert!(
            out.output()
                .trim_end()
                .ends_with("red ALERT bell nul cr\n\tindented"),
            "{format}: {:?}",
            out.output()
        );
    }
    let out = fetch(&ws, &server.url("/html")).ok();
    assert!(out.output().ends_with("\n\nabc"), "{:?}", out.output());
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn a_redirect_loop_is_named_and_not_offered_as_a_retry() {
    assert_private_namespace();
    let server = Server::start("127.0.0.2", |path, _| match path {
        "/a" => redirect(302, "/b"),
        "/b" => redirect(302, "/a"),
        _ => html(404, ""),
    });
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch(&ws, &server.url("/a")).err("io_error");
    let message = out.message();
    assert!(message.contains("the redirects form a loop"), "{message}");
    assert!(message.contains("use another source"), "{message}");
    assert!(!message.contains("call fetch_url with url="), "{message}");
    assert_eq!(out.error()["loop"], true);
}
