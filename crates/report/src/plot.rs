//! The one plot setup for `plotters`.
//!
//! * Text is laid out with DejaVu Sans, embedded in the binary (the `dejavu`
//!   crate) and registered once as `sans-serif` with `plotters`' `ab_glyph`
//!   backend: no system font, no font file read at run time, nothing leaked.
//!   SVG viewers render the text with their own sans-serif.
//! * [`svg`] draws into a string; [`png()`] draws into an RGB buffer and
//!   encodes it in memory; [`write()`] writes either
//!   through [`arclab_io::write_atomic`] (so plots get the same safe,
//!   atomic write as every other output).
//!
//! ```
//! use plotters::coord::Shift;
//! use plotters::prelude::*;
//! fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> Result<(), String> {
//!     root.fill(&WHITE).map_err(|e| e.to_string())?;
//!     root.draw_text("hello", &("sans-serif", 20).into_text_style(root), (10, 10))
//!         .map_err(|e| e.to_string())
//! }
//! let svg = arclab_report::plot::svg((200, 100), |r| draw(r)).unwrap();
//! assert!(svg.contains("hello"));
//! let png = arclab_report::plot::png((200, 100), |r| draw(r)).unwrap();
//! assert_eq!(&png[1..4], b"PNG");
//! ```

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// Why a plot could not be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The embedded font could not be registered (a build problem).
    #[error("plot: the embedded DejaVu Sans font could not be loaded")]
    Font,
    /// Drawing failed.
    #[error("plot: {0}")]
    Draw(String),
    /// PNG encoding failed.
    #[error("plot: PNG encoding: {0}")]
    Encode(String),
    /// The file name does not say SVG or PNG.
    #[error("{0}: the plot file must end in .png or .svg")]
    Extension(String),
    /// Writing the file failed.
    #[error(transparent)]
    Io(#[from] arclab_io::Error),
}

/// Register the embedded DejaVu Sans as `sans-serif`, once per process.
pub fn fonts() -> Result<(), Error> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .is_ok()
    });
    if ok { Ok(()) } else { Err(Error::Font) }
}

/// Draw a `size` (pixels) chart into an SVG document.
pub fn svg(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String>,
) -> Result<String, Error> {
    fonts()?;
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, size).into_drawing_area();
        draw(&root).map_err(Error::Draw)?;
        root.present().map_err(|e| Error::Draw(e.to_string()))?;
    }
    Ok(s)
}

/// Largest image [`png()`] draws: 8,192 pixels a side (a 200 MB buffer).
pub const MAX_SIDE: u32 = 8192;

/// Draw a `size` (pixels) chart and encode it as PNG (8-bit RGB).
pub fn png(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<BitMapBackend<'_>, Shift>) -> Result<(), String>,
) -> Result<Vec<u8>, Error> {
    fonts()?;
    let (w, h) = size;
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(Error::Draw(format!(
            "image size {w}×{h} outside 1..={MAX_SIDE} pixels a side"
        )));
    }
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        draw(&root).map_err(Error::Draw)?;
        root.present().map_err(|e| Error::Draw(e.to_string()))?;
    }
    let mut out = Vec::new();
    {
        let mut enc = ::png::Encoder::new(&mut out, w, h);
        enc.set_color(::png::ColorType::Rgb);
        enc.set_depth(::png::BitDepth::Eight);
        let mut writer = enc
            .write_header()
            .map_err(|e| Error::Encode(e.to_string()))?;
        writer
            .write_image_data(&rgb)
            .map_err(|e| Error::Encode(e.to_string()))?;
        writer.finish().map_err(|e| Error::Encode(e.to_string()))?;
    }
    Ok(out)
}

/// An axis tick: `0`, `750`, `1,500`, `2.5`: whole numbers with thousands
/// separators, fractions with at most two decimals (never `1.0 k` or `0.0`).
pub fn tick(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if v.abs() < 1e-9 {
        return "0".into();
    }
    if (v - v.round()).abs() < 1e-6 * v.abs().max(1.0) || v.abs() >= 100.0 {
        let n = v.round() as i64;
        let digits = n.unsigned_abs().to_string();
        let mut out = String::new();
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(ch);
        }
        return if n < 0 { format!("-{out}") } else { out };
    }
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Whether `path` names an SVG (`.svg`) or PNG (`.png`) file, by extension.
pub fn is_svg(path: &Path) -> Result<bool, Error> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => Ok(true),
        Some("png") => Ok(false),
        _ => Err(Error::Extension(path.display().to_string())),
    }
}

/// Write SVG text or PNG bytes to `path` atomically
/// ([`arclab_io::write_atomic`]).
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    arclab_io::write_atomic(path, bytes)?;
    Ok(())
}
