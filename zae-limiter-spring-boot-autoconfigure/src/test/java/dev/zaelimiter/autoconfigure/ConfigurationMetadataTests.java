package dev.zaelimiter.autoconfigure;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaelimiter.autoconfigure.web.ZaeLimiterWebProperties;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;

import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata IDEs read documents the fields inside limit declarations and rules (which the annotation
 * processor cannot reach inside maps and lists), value hints for the enumerations written as text, and every default.
 */
class ConfigurationMetadataTests {

    private static final Map<String, JsonNode> properties = new HashMap<>();
    private static final Map<String, JsonNode> hints = new HashMap<>();

    static {
        // every copy on the class path: the processor also writes one for the test classes
        try {
            for (URL url : Collections.list(ConfigurationMetadataTests.class.getClassLoader()
                    .getResources("META-INF/spring-configuration-metadata.json"))) {
                try (InputStream in = url.openStream()) {
                    JsonNode root = new ObjectMapper().readTree(in);
                    root.path("properties").forEach(p -> properties.put(p.get("name").asText(), p));
                    root.path("hints").forEach(h -> hints.put(h.get("name").asText(), h));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void documentsEveryField(String prefix, Class<?> type) {
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
                continue;
            }
            Class<?> valueType = descriptor.getPropertyType();
            if (valueType.getName().startsWith("dev.zaelimiter.autoconfigure") && !valueType.isEnum()) {
                continue; // a group of settings: its own fields are checked
            }
            String name = prefix + "." + DataObjectPropertyName.toDashedForm(descriptor.getName());
            assertThat(properties).as("metadata for %s", name).containsKey(name);
            assertThat(properties.get(name).path("description").asText()).as("description of %s", name).isNotBlank();
        }
    }

    @Test
    void documentsTheFieldsOfLimitDeclarationsAtEveryLevel() {
        for (String level : List.of("zae.limiter.system.limits.*", "zae.limiter.resources.*.limits.*",
                "zae.limiter.entities.*.resources.*.limits.*")) {
            documentsEveryField(level, ZaeLimiterProperties.LimitDeclaration.class);
            documentsEveryField(level + ".schedule[*]", ZaeLimiterProperties.ScheduleDeclaration.class);
            documentsEveryField(level + ".reset-schedule[*]", ZaeLimiterProperties.ResetDeclaration.class);
        }
        documentsEveryField("zae.limiter.resources.*", ZaeLimiterProperties.Resource.class);
        documentsEveryField("zae.limiter.entities.*", ZaeLimiterProperties.EntityDeclaration.class);
        documentsEveryField("zae.limiter.entities.*.resources.*", ZaeLimiterProperties.Resource.class);
    }

    @Test
    void documentsTheFieldsOfOutboundTargets() {
        documentsEveryField("zae.limiter.client.targets.*",
                dev.zaelimiter.autoconfigure.client.ZaeLimiterClientProperties.Target.class);
        documentsEveryField("zae.limiter.client.targets.*.entity",
                dev.zaelimiter.autoconfigure.client.ZaeLimiterClientProperties.Entity.class);
    }

    @Test
    void documentsTheFieldsOfRules() {
        documentsEveryField("zae.limiter.web.rules[*]", ZaeLimiterWebProperties.Rule.class);
        documentsEveryField("zae.limiter.web.rules[*].entity", ZaeLimiterWebProperties.Entity.class);
        documentsEveryField("zae.limiter.web.rules[*].entity.hash", ZaeLimiterWebProperties.Hash.class);
    }

    @Test
    void hintsTheValuesOfTheEntitySourceAndModes() {
        assertThat(hints.get("zae.limiter.web.rules[*].entity.source").get("values").findValuesAsText("value"))
                .containsExactly("header", "principal", "remote-address", "expression");
        assertThat(hints.get("zae.limiter.resources.*.disabled").get("values").findValuesAsText("value"))
                .containsExactly("enabled", "disabled", "bypass");
    }

    @Test
    void givesEveryDefault() {
        Map<String, String> defaults = Map.ofEntries(
                Map.entry("zae.limiter.resources.*.limits.*.refill-period", "1m"),
                Map.entry("zae.limiter.resources.*.limits.*.lease-timeout", "5m"),
                Map.entry("zae.limiter.resources.*.limits.*.soft", "false"),
                Map.entry("zae.limiter.resources.*.limits.*.schedule[*].tz", "UTC"),
                Map.entry("zae.limiter.resources.*.limits.*.reset-schedule[*].tz", "UTC"),
                Map.entry("zae.limiter.web.rules[*].max-wait", "0s"),
                Map.entry("zae.limiter.web.rules[*].entity.hash.enabled", "false"),
                Map.entry("zae.limiter.entities.*.cascade", "false"),
                Map.entry("zae.limiter.aop.order", "2147483645"),
                Map.entry("zae.limiter.strict-consume", "false"),
                Map.entry("zae.limiter.store", "auto"),
                Map.entry("zae.limiter.stamp-ttl", "60s"),
                Map.entry("zae.limiter.store-timeout", "500ms"),
                Map.entry("zae.limiter.web.unavailable-retry-after", "1s"));
        defaults.forEach((name, value) -> assertThat(properties.get(name).path("defaultValue").asText())
                .as("default of %s", name).isEqualTo(value));
        properties.values().forEach(p -> {
            String type = p.path("type").asText();
            boolean simple = type.startsWith("java.lang.Boolean") || type.startsWith("java.lang.Integer")
                    || type.equals("java.time.Duration") && p.path("name").asText().matches(
                            "zae\\.limiter\\.(stamp-ttl|store-timeout|circuit-breaker\\..*|web\\..*)");
            if (simple && p.path("name").asText().startsWith("zae.limiter")
                    && !p.path("name").asText().contains("*")) {
                assertThat(p.has("defaultValue")).as("default of %s", p.path("name").asText()).isTrue();
            }
        });
    }
}
