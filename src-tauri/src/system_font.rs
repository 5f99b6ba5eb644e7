//! The page's sans-serif is the desktop's own font (issue 56).
//!
//! The UI asks for `sans-serif`, not `system-ui`: WebKitGTK spent about
//! 20 ms more of the first layout resolving `system-ui` (page marks over
//! six starts each: first paint at a median 101 ms after navigation start
//! against 76 to 85 ms with `sans-serif`). So that the window still shows
//! the desktop's font, the shell names it as WebKit's sans-serif family
//! before the page lays out: GTK's `gtk-font-name`, without its size and
//! style ("Cantarell 11" → "Cantarell").

/// At setup, for the main window. Without a GTK font setting WebKit's own
/// sans-serif stays.
pub fn adopt(app: &tauri::App) {
    use tauri::Manager;
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let adopted = window.with_webview(|webview| {
        #[cfg(target_os = "linux")]
        {
            use gtk::prelude::GtkSettingsExt;
            use webkit2gtk::{SettingsExt, WebViewExt};
            let desktop = gtk::Settings::default()
                .and_then(|s| s.gtk_font_name())
                .and_then(|name| family_of(&name));
            let settings = WebViewExt::settings(&webview.inner());
            if let (Some(family), Some(settings)) = (desktop, settings) {
                settings.set_sans_serif_font_family(&family);
                tracing::debug!(family, "the page's sans-serif is the desktop's font");
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = webview;
    });
    if let Err(e) = adopted {
        tracing::warn!(error = %e, "the page keeps WebKit's sans-serif font");
    }
}

/// The family of a Pango font description ("Noto Sans Bold 10" → "Noto
/// Sans"); None when it names none.
#[cfg(target_os = "linux")]
fn family_of(description: &str) -> Option<String> {
    let parsed = gtk::pango::FontDescription::from_string(description);
    parsed
        .family()
        .map(|f| f.trim().to_owned())
        .filter(|f| !f.is_empty())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::family_of;

    #[test]
    fn a_gtk_font_name_gives_its_family_without_size_or_style() {
        assert_eq!(family_of("Cantarell 11").as_deref(), Some("Cantarell"));
        assert_eq!(family_of("Noto Sans Bold 10").as_deref(), Some("Noto Sans"));
        assert_eq!(family_of("Ubuntu").as_deref(), Some("Ubuntu"));
        assert_eq!(family_of("12").as_deref(), None);
    }
}
