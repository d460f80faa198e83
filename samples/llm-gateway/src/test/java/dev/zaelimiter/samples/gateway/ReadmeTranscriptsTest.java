package dev.zaelimiter.samples.gateway;

import dev.zaelimiter.autoconfigure.test.AutoConfigureZaeLimiterTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the requests of the sample's README in its order, on a random port and a clock that stands still, and checks
 * that every transcript in the README (status, headers, body) is what the sample answers, so that they cannot drift.
 * Headers the README leaves out on purpose (Date, lengths, connection handling) are ignored; any other header must be
 * in the transcript, and every header of the transcript must be in the answer with the same value.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureZaeLimiterTest
@ExtendWith(OutputCaptureExtension.class)
class ReadmeTranscriptsTest {

    private static final Set<String> LEFT_OUT = Set.of("date", "content-length", "transfer-encoding", "connection",
            "keep-alive");
    private static final String HELLO = "{\"prompt\":\"Say hello\",\"max_tokens\":100}";
    private static final String LONG = "{\"prompt\":\"" + "x".repeat(4000) + "\",\"max_tokens\":1000}";

    @LocalServerPort
    int port;

    @Autowired
    ObjectMapper json;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void theReadmeTranscriptsAreWhatTheSampleAnswers() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        List<String> transcripts = blocks(readme, "http");
        List<String> jsonBlocks = blocks(readme, "json");
        assertThat(transcripts).hasSize(3);
        // docs/getting-started.md shows the same 429 as this README
        assertThat(blocks(Files.readString(Path.of("../../docs/getting-started.md")), "http"))
                .isNotEmpty().allSatisfy(block -> assertThat(transcripts).contains(block));

        // "See a 429": one request
        same(transcripts.get(0), chat("sk-hobby-1", HELLO));

        // a dozen at once, then one more
        String[] burst = transcripts.get(1).split("\n", 2);
        assertThat(codes("sk-hobby-1", HELLO, 12)).isEqualTo(burst[0].trim());
        same(burst[1], chat("sk-hobby-1", HELLO));

        // tokens: two long requests, then one more, refused by @RateLimited
        String[] tokens = transcripts.get(2).split("\n", 2);
        assertThat(codes("sk-acme-batch-1", LONG, 2)).isEqualTo(tokens[0].trim());
        same(tokens[1], chat("sk-acme-batch-1", LONG));

        // the other Acme key: its second call takes Acme's soft tpm into debt
        String[] answers = jsonBlocks.get(0).split("\n");
        assertThat(answers).hasSize(2);
        for (String answer : answers) {
            HttpResponse<String> response = chat("sk-acme-web-1", LONG);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(json.readTree(response.body())).isEqualTo(json.readTree(answer));
        }

        // the actuator: reads work, the reset is not exposed
        assertThat(send(HttpRequest.newBuilder(uri("/actuator/ratelimits")).GET()).statusCode()).isEqualTo(200);
        assertThat(send(HttpRequest.newBuilder(uri("/actuator/ratelimits/org-acme/gpt-4o")).GET()).statusCode())
                .isEqualTo(200);
        assertThat(send(HttpRequest.newBuilder(uri("/actuator/ratelimits/org-acme/gpt-4o")).DELETE()).statusCode())
                .isEqualTo(405);
    }

    /** The contents of every fenced block of {@code lang}, in order. */
    /** The README's startup log lines of zae-limiter are what the sample, started as the README says, logs. */
    @Test
    void theReadmeStartupLinesOfZaeLimiterAreWhatTheSampleLogs(CapturedOutput output) throws Exception {
        List<String> lines = blocks(Files.readString(Path.of("README.md")), "text").get(0).lines()
                .filter(line -> line.startsWith("... d.z.a.")).toList();
        assertThat(lines).isNotEmpty();
        try (ConfigurableApplicationContext sample = new SpringApplicationBuilder(LlmGatewayApplication.class)
                .run("--server.port=0")) {
            for (String line : lines) {
                assertThat(output.getOut()).contains(line.substring(line.indexOf(" : ") + 3));
            }
        }
    }

    private static List<String> blocks(String markdown, String lang) {
        List<String> blocks = new ArrayList<>();
        String fence = "```" + lang + "\n";
        int at = markdown.indexOf(fence);
        while (at >= 0) {
            int start = at + fence.length();
            int end = markdown.indexOf("\n```", start);
            blocks.add(markdown.substring(start, end));
            at = markdown.indexOf(fence, end);
        }
        return blocks;
    }

    private void same(String transcript, HttpResponse<String> response) throws IOException {
        String[] parts = transcript.split("\n\n", 2);
        String[] head = parts[0].split("\n");
        assertThat(head[0]).isEqualTo("HTTP/1.1 " + response.statusCode());
        Map<String, String> written = new TreeMap<>();
        for (int i = 1; i < head.length; i++) {
            String[] header = head[i].split(": ", 2);
            written.put(header[0].toLowerCase(Locale.ROOT), header[1]);
        }
        Map<String, String> answered = response.headers().map().entrySet().stream()
                .filter(e -> !LEFT_OUT.contains(e.getKey().toLowerCase(Locale.ROOT)))
                .collect(Collectors.toMap(e -> e.getKey().toLowerCase(Locale.ROOT), e -> String.join(", ", e.getValue()),
                        (a, b) -> a, TreeMap::new));
        assertThat(answered).as("headers of %s", head[0]).isEqualTo(written);
        assertThat(json.readTree(response.body())).as("body of %s", head[0]).isEqualTo(json.readTree(parts[1]));
    }

    private String codes(String key, String body, int times) throws Exception {
        StringBuilder codes = new StringBuilder();
        for (int i = 0; i < times; i++) {
            codes.append(i == 0 ? "" : " ").append(chat(key, body).statusCode());
        }
        return codes.toString();
    }

    private HttpResponse<String> chat(String key, String body) throws Exception {
        return send(HttpRequest.newBuilder(uri("/v1/chat/completions"))
                .header("X-API-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }
}
