package dev.zaelimiter.docs;

import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The YAML examples of the docs, so that tests start applications with exactly what a page shows: a {@code yaml}
 * block preceded by {@code <!-- yaml: NAME -->}.
 */
public final class DocsYaml {

    private static final Pattern YAML = Pattern.compile("<!-- yaml: ([\\w-]+) -->\\s*```yaml\\n(.*?)```",
            Pattern.DOTALL);

    private DocsYaml() {
    }

    /** The block {@code name} of {@code docs/<page>}, as property sources. */
    public static List<PropertySource<?>> load(String page, String name) {
        Path path = Path.of("../docs", page);
        try {
            Matcher m = YAML.matcher(Files.readString(path, StandardCharsets.UTF_8));
            while (m.find()) {
                if (m.group(1).equals(name)) {
                    return new YamlPropertySourceLoader().load(page + "#" + name,
                            new ByteArrayResource(m.group(2).getBytes(StandardCharsets.UTF_8)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new AssertionError("no yaml block " + name + " in " + path.toAbsolutePath());
    }

    /** Adds the block {@code name} of {@code docs/<page>} to a context's environment, ahead of other sources. */
    public static ApplicationContextInitializer<ConfigurableApplicationContext> initializer(String page,
            String name) {
        List<PropertySource<?>> sources = load(page, name);
        return context -> sources.forEach(source -> context.getEnvironment().getPropertySources().addFirst(source));
    }
}
