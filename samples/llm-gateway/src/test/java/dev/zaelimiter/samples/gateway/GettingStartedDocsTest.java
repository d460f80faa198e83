package dev.zaelimiter.samples.gateway;

import org.junit.jupiter.api.Test;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The YAML blocks of {@code docs/getting-started.md} (each after {@code <!-- yaml: getting-started-... -->}) are what
 * this sample runs: every property they set is set to the same value in the default profile of its
 * {@code application.yaml}, which {@link LlmGatewayApplicationTests} drives to its 429s.
 */
class GettingStartedDocsTest {

    private static final Pattern YAML =
            Pattern.compile("<!-- yaml: (getting-started-[\\w-]+) -->\\s*```yaml\\n(.*?)```", Pattern.DOTALL);

    @Test
    void theYamlOfTheGettingStartedPageIsTheSamplesOwn() throws IOException {
        Map<String, String> sample = properties(new ClassPathResource("application.yaml"));
        String page = Files.readString(Path.of("../../docs/getting-started.md"), StandardCharsets.UTF_8);

        Matcher block = YAML.matcher(page);
        int blocks = 0;
        while (block.find()) {
            blocks++;
            Map<String, String> documented = properties(new ByteArrayResource(
                    block.group(2).getBytes(StandardCharsets.UTF_8), block.group(1)));
            assertThat(documented).as(block.group(1)).isNotEmpty();
            assertThat(sample).as("application.yaml, for the block %s of getting-started.md", block.group(1))
                    .containsAllEntriesOf(documented);
        }
        assertThat(blocks).as("yaml blocks in getting-started.md").isEqualTo(3);
    }

    /** The properties of the first YAML document of {@code yaml}, flattened ({@code a.b[0].c}), as strings. */
    private static Map<String, String> properties(Resource yaml) throws IOException {
        PropertySource<?> first = new YamlPropertySourceLoader().load("yaml", yaml).get(0);
        Map<String, String> properties = new LinkedHashMap<>();
        for (String name : ((EnumerablePropertySource<?>) first).getPropertyNames()) {
            properties.put(name, String.valueOf(first.getProperty(name)));
        }
        return properties;
    }
}
