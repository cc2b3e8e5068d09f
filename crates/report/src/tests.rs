use super::*;

/// The CLI's table of old (`crate::output::Table`): every column Auto.
fn cli() -> Table {
    let mut t = Table::new(&["policy", "miss_ratio"]);
    t.push(vec!["lru".to_string(), "0.5".into()]);
    t.push(vec!["a,\"b\"".to_string(), "12.25".into()]);
    t
}

#[test]
fn text_aligns_numbers_right_headers_left() {
    assert_eq!(
        cli().to_text(),
        "policy  miss_ratio\nlru            0.5\na,\"b\"        12.25\n"
    );
    // An Auto first column right-aligns a numeric cell; a Left one does not
    // (metrics' tables label rows in their first column).
    let mut t = Table::new(&["cap", "x"]);
    t.push(vec!["8G", "1"]);
    t.push(vec!["default", "10"]);
    assert_eq!(t.to_text(), "cap      x\n     8G   1\ndefault  10\n");
    let t = t.align(0, Align::Left);
    assert_eq!(t.to_text(), "cap      x\n8G        1\ndefault  10\n");
}

#[test]
fn csv_quotes_only_what_needs_it() {
    assert_eq!(
        cli().to_csv(),
        "policy,miss_ratio\nlru,0.5\n\"a,\"\"b\"\"\",12.25\n"
    );
    assert_eq!(csv::field("a\nb"), "\"a\nb\"");
}

#[test]
fn markdown_escapes_pipes() {
    let mut t = Table::new(&["a", "b"]);
    t.push(vec!["x|y", "1,5"]);
    assert_eq!(t.to_markdown(), "| a | b |\n|---|---|\n| x\\|y | 1,5 |\n");
    assert_eq!(t.to_text(), "a    b\nx|y  1,5\n");
}

#[test]
fn json_keeps_types() {
    let mut t = Table::with_columns(vec![
        Column::new("cap"),
        Column::new("bytes").unit("B").key("c_max_bytes"),
        Column::new("ratio"),
        Column::new("saturated"),
        Column::new("multiplier"),
    ]);
    t.push(vec![
        Cell::from("8G"),
        Cell::from(8u64 << 30),
        Cell::number(0.25, "25.00 %"),
        Cell::from(true),
        Cell::Empty,
    ]);
    t.push(vec![
        Cell::from("x"),
        Cell::Int(-1),
        Cell::number(f64::NAN, "-"),
        Cell::from(false),
        Cell::Int(i128::from(u64::MAX) + 1),
    ]);
    let v: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
    assert_eq!(v[0]["c_max_bytes"], 8_589_934_592u64);
    assert_eq!(v[0]["ratio"], 0.25);
    assert_eq!(v[0]["saturated"], true);
    assert!(v[0]["multiplier"].is_null());
    assert_eq!(v[1]["c_max_bytes"], -1);
    assert!(v[1]["ratio"].is_null(), "NaN is not JSON");
    assert_eq!(v[1]["multiplier"], "18446744073709551616");
    assert_eq!(t.headers()[1], "bytes (B)");
    assert!(
        t.to_csv()
            .starts_with("cap,bytes (B),ratio,saturated,multiplier\n8G,8589934592,25.00 %,true,\n")
    );
}

#[test]
fn html_escapes_everything_it_quotes() {
    assert_eq!(
        html::escape("<a href='x'>&\""),
        "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
    );
    let mut t = Table::new(&["<name>", "n"]);
    t.push(vec!["<script>", "12"]);
    let h = html::table(&t, Some("a\"b"));
    assert_eq!(
        h,
        "<table id=\"a&quot;b\">\n<thead><tr><th>&lt;name&gt;</th><th>n</th></tr></thead>\n<tbody>\n\
         <tr><td>&lt;script&gt;</td><td class=\"num\">12</td></tr>\n</tbody>\n</table>\n"
    );
    assert_eq!(t.render(Format::Html), t.to_html());
}

#[test]
fn short_rows_are_padded() {
    let mut t = Table::new(&["a", "b"]);
    t.rows.push(vec![Cell::from("x")]);
    t.push(vec!["y", "z"]);
    assert_eq!(t.rows[1].len(), 2);
}

#[test]
fn plot_files_by_extension() {
    use std::path::Path;
    assert!(plot::is_svg(Path::new("a.SVG")).unwrap());
    assert!(!plot::is_svg(Path::new("a.png")).unwrap());
    let e = plot::is_svg(Path::new("a.jpg")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a.jpg: the plot file must end in .png or .svg"
    );
    assert!(plot::png((0, 10), |_| Ok(())).is_err());
    assert!(plot::png((10, plot::MAX_SIDE + 1), |_| Ok(())).is_err());
}

#[test]
fn png_is_decodable_and_drawn_with_text() {
    use plotters::prelude::*;
    let bytes = plot::png((120, 40), |root| {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        root.draw_text(
            "Hg",
            &("sans-serif", 30).into_text_style(root).color(&BLACK),
            (5, 5),
        )
        .map_err(|e| e.to_string())
    })
    .unwrap();
    let dec = ::png::Decoder::new(std::io::Cursor::new(bytes));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (120, 40));
    // The embedded font drew something dark on the white background.
    assert!(buf[..info.buffer_size()].iter().any(|&b| b < 64));
}

#[test]
fn json_is_valid_for_odd_keys_and_empty_tables() {
    let mut t = Table::new(&["a \"q\"", "b"]);
    assert_eq!(t.to_json(), "[]\n");
    t.push(vec!["1\n2", "x"]);
    t.push(vec!["3", "y"]);
    let v: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
    assert_eq!(v[0]["a \"q\""], "1\n2");
    assert_eq!(v[1]["b"], "y");
    // Pretty-printed like serde_json's own pretty printer (these keys are
    // in sorted order, so its map order agrees with the column order).
    assert_eq!(
        t.to_json(),
        serde_json::to_string_pretty(&v).unwrap() + "\n"
    );
}
