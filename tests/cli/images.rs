//! End-to-end: `bearagent run --image` against a loopback Chat Completions
//! server — the image reaches the request as an `image_url` part with the
//! exact bytes; bad images (text named .png, 30 MB, an unsupported type, a
//! model that does not read images) fail with a usage error and send
//! nothing.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod loopback;
mod support;

use loopback::{chat_text, serve};
use std::path::Path;

/// A real 1×1 PNG.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82";

fn run_with(
    env: &support::Env,
    base_url: &str,
    model: &str,
    images: &[&Path],
) -> support::RunResult {
    let mut cmd = env.command();
    cmd.args([
        "run",
        "--json",
        "--approve",
        "all",
        "--provider",
        "openai-chat",
    ])
    .args(["--base-url", base_url, "--model", model, "--workspace"])
    .arg(env.ws());
    for image in images {
        cmd.arg("--image").arg(image);
    }
    support::RunResult::from_output_pub(cmd.arg("why is the button red?").output().unwrap())
}

#[test]
fn an_image_goes_out_as_an_image_url_part_and_is_referenced_by_the_first_event() {
    use base64::Engine as _;
    let env = support::env();
    // A 300 KB screenshot: the real PNG's bytes, then padding.
    let image = [PNG, &vec![7u8; 300 * 1024]].concat();
    let shot = env.scratch.path().join("shot.png");
    std::fs::write(&shot, &image).unwrap();
    let server = serve(vec![chat_text("It is the error state.")]);
    let r = run_with(&env, &server.base_url, "gpt-4o", &[&shot]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    env.keep("image", &r.run_id());

    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let goal = &requests[0].body["messages"][1];
    assert_eq!(goal["role"], "user");
    assert_eq!(goal["content"][0]["text"], "why is the button red?");
    let want = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&image)
    );
    assert_eq!(goal["content"][1]["type"], "image_url");
    assert_eq!(goal["content"][1]["image_url"]["url"], want);

    let created = &r.of_type("run_created")[0]["payload"];
    assert_eq!(created["images"][0]["name"], "shot.png");
    assert_eq!(created["images"][0]["media_type"], "png");
    assert_eq!(created["images"][0]["bytes"], image.len());
    // The context's size counts the ref, not the image's 300 KB; the
    // token estimate adds a screenshot's worth of tokens for it.
    let requested = &r.of_type("model_call_requested")[0]["payload"];
    let bytes = requested["context_bytes"].as_u64().unwrap();
    let tokens = requested["estimated_tokens"].as_u64().unwrap();
    assert!(bytes < 20_000, "{requested}");
    assert!(tokens >= 1_600 + bytes / 6, "{requested}");
}

#[test]
fn bad_images_fail_with_a_usage_error_and_send_nothing() {
    let env = support::env();
    let dir = env.scratch.path();
    let text = dir.join("notes.png");
    std::fs::write(&text, "I am text with a .png name").unwrap();
    let huge = dir.join("huge.png");
    let f = std::fs::File::create(&huge).unwrap();
    f.set_len(30 * 1024 * 1024).unwrap();
    let bmp = dir.join("old.bmp");
    std::fs::write(&bmp, b"BM\x3a\0\0\0\0\0\0\0\x36\0\0\0").unwrap();
    let png = dir.join("ok.png");
    std::fs::write(&png, PNG).unwrap();
    let server = serve(Vec::new());
    let cases: [(&Path, &str, &str); 4] = [
        (
            &text,
            "gpt-4o",
            "notes.png is not a PNG, JPEG, WebP or GIF image",
        ),
        (&huge, "gpt-4o", "is 30.0 MB; images may be at most 20.0 MB"),
        (&bmp, "gpt-4o", "old.bmp is not a PNG"),
        (&png, "my-text-model", "vision = true"),
    ];
    for (image, model, says) in cases {
        let r = run_with(&env, &server.base_url, model, &[image]);
        assert_eq!(r.code, 2, "{}: {}", image.display(), r.stderr);
        assert!(r.stderr.contains(says), "{}", r.stderr);
    }
    assert!(
        server.requests.lock().unwrap().is_empty(),
        "nothing was sent"
    );
    assert!(env.runs().is_empty(), "no run was recorded");
}
