//! Given images with a goal: stored, referenced by the first event, sent
//! to the model as bytes, readable back; bad images refused before
//! anything is recorded or sent.

use super::tests::{fixture, Fixture};
use super::*;
use crate::profile::RunProfile;
use bearagent_kernel::{HistoryItem, ImageType, RunStatus};
use bearagent_providers::{json_text_provider, ModelProvider, ScriptedProvider};
use std::sync::Arc;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

fn answer() -> ScriptedProvider {
    ScriptedProvider::from_json(r#"[{"final_answer": "it is red on purpose"}]"#).unwrap()
}

fn start(
    f: &Fixture,
    provider: Arc<dyn ModelProvider>,
    images: Vec<ImageInput>,
) -> Result<RunId, AppError> {
    f.app.start_run(StartRun {
        workspace: f.ws.path().display().to_string(),
        goal: "why is this button red?".into(),
        profile: RunProfile::default(),
        provider,
        images,
    })
}

fn png(name: &str) -> ImageInput {
    ImageInput {
        name: name.into(),
        bytes: PNG.to_vec(),
    }
}

#[tokio::test]
async fn a_goal_s_image_is_referenced_by_the_first_event_and_reaches_the_model() {
    let f = fixture();
    let provider = answer();
    let run = start(&f, Arc::new(provider.clone()), vec![png("shot.png")]).unwrap();
    assert_eq!(
        f.app.wait_run(run).await.unwrap().status,
        RunStatus::Succeeded
    );

    let events = f
        .app
        .list_events(run, bearagent_kernel::EventSeq(0), 1)
        .unwrap();
    let EventPayload::RunCreated { images, .. } = &events[0].payload else {
        panic!("RunCreated first")
    };
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].media_type, ImageType::Png);
    assert_eq!(images[0].name, "shot.png");
    assert_eq!(images[0].bytes, PNG.len() as u64);

    let sent = &provider.calls()[0];
    let HistoryItem::Message(goal) = &sent.history[0] else {
        panic!("the goal first")
    };
    assert_eq!(goal.images, *images);
    assert_eq!(&*sent.images[&images[0].blob], PNG);

    let read = f.app.run_image(run, &images[0].blob).unwrap();
    assert_eq!(read.bytes, PNG);
    // A blob the run does not reference as an image is not given out.
    let other = f.app.store.put_blob(b"secret", f.app.clock.now()).unwrap();
    assert!(matches!(
        f.app.run_image(run, &other),
        Err(AppError::NotFound { .. })
    ));
}

#[tokio::test]
async fn bad_images_are_refused_before_the_run_exists() {
    let f = fixture();
    let cases = [
        (
            vec![ImageInput {
                name: "notes.png".into(),
                bytes: b"just text".to_vec(),
            }],
            "notes.png is not a PNG",
        ),
        (
            vec![ImageInput {
                name: "huge.png".into(),
                bytes: [PNG, &vec![0u8; 21 * 1024 * 1024]].concat(),
            }],
            "at most 20.0 MB",
        ),
        (
            (0..9).map(|i| png(&format!("{i}.png"))).collect(),
            "at most 8",
        ),
    ];
    for (images, says) in cases {
        let provider = answer();
        let err = start(&f, Arc::new(provider.clone()), images).unwrap_err();
        assert!(
            matches!(&err, AppError::InvalidInput(m) if m.contains(says)),
            "{err}"
        );
        assert!(provider.calls().is_empty(), "nothing is sent");
    }
    assert!(
        f.app.runs(None, Some(10)).unwrap().is_empty(),
        "no run was created"
    );
}

#[tokio::test]
async fn a_model_that_does_not_read_images_refuses_them_naming_the_setting() {
    let f = fixture();
    let text_only = json_text_provider(Arc::new(answer()));
    let err = start(&f, text_only, vec![png("shot.png")]).unwrap_err();
    assert!(
        matches!(&err, AppError::InvalidInput(m) if m.contains("vision = true") && m.contains("JSON-text")),
        "{err}"
    );
}
