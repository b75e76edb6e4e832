<?php
// A heavy CMS page, as the proof needs it: a render array of many small PHP
// values (about 20 MB held until the response is sent), about 35 ms of CPU work
// per request, and a body of FIXED length, so that a child killed mid-response
// shows up in ab as a "Length" failure. When the proof runs with MariaDB it
// writes database.php next to this page, and the page reads its newest articles.
const BODY_BYTES = 28000;

function send_fixed_length(int $status, string $body, string $tail): void
{
    http_response_code($status);
    header('Content-Type: text/html; charset=utf-8');
    $head = substr($body, 0, BODY_BYTES - strlen($tail));
    echo str_pad($head, BODY_BYTES - strlen($tail)), $tail;
}

$render = [];
$database = is_file(__DIR__ . '/database.php') ? require __DIR__ . '/database.php' : null;
if ($database !== null) {
    try {
        $connection = new mysqli('localhost', $database['user'], $database['password'], $database['name'], 0, $database['socket']);
        $articles = $connection->query('SELECT id, title FROM article ORDER BY created DESC LIMIT 50');
        foreach ($articles as $article) {
            $render[] = ['#type' => 'markup', '#markup' => $article['title'], '#weight' => 0, '#cache' => ['tags' => ['article:' . $article['id']]]];
        }
        $connection->close();
    } catch (Throwable $error) {
        // Same length as a good page, so ab counts it once, as a non-2xx response.
        send_fixed_length(503, 'database unavailable: ' . get_class($error), "\n");
        exit;
    }
}

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
send_fixed_length(200, $body, '</ul><p>' . $hash . "</p></body></html>\n");
