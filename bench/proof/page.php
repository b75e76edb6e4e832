<?php
// A heavy CMS page, as the proof needs it: a render array of many small PHP
// values (about 20 MB held until the response is sent), about 35 ms of CPU work
// per request, and a body of FIXED length, so that a child killed mid-response
// shows up in ab as a "Length" failure.
const BODY_BYTES = 28000;

$render = [];
for ($i = 0; $i < 20000; $i++) {
    $render[] = [
        '#type' => 'markup',
        '#markup' => 'node ' . $i . ' teaser text ' . str_repeat('x', 20),
        '#weight' => $i % 50,
        '#cache' => ['tags' => ['node:' . $i]],
    ];
}

$hash = 'seed';
for ($i = 0; $i < 110000; $i++) {
    $hash = md5($hash);
}

$body = "<!DOCTYPE html>\n<html><head><title>proof page</title></head><body><ul>\n";
foreach ($render as $item) {
    if (strlen($body) >= BODY_BYTES) {
        break;
    }
    $body .= '<li>' . $item['#markup'] . "</li>\n";
}
$tail = '</ul><p>' . $hash . "</p></body></html>\n";
$head = substr($body, 0, BODY_BYTES - strlen($tail));
header('Content-Type: text/html; charset=utf-8');
echo str_pad($head, BODY_BYTES - strlen($tail)), $tail;
