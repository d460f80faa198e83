package dev.zaelimiter.autoconfigure;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.boot.origin.OriginTrackedValue;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Lets an environment variable, a system property or a command-line argument override one entry of a list under
 * {@code zae.limiter} ({@code ZAE_LIMITER_WEB_RULES_0_CONSUME_RPM=2}) instead of replacing the whole list, which is
 * what Spring's binder does with a list that more than one property source writes. For each such list, the entries
 * of every source are merged, the higher source winning per key, into a property source placed first. A key that a
 * higher source sets as a whole (a comma-separated {@code paths}, say) replaces everything a lower source wrote
 * under it. The merge is taken once, before the properties are bound.
 */
final class ListEntryOverrides {

    static final String NAME = "zaeLimiterListEntries";

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_-]+");

    private ListEntryOverrides() {
    }

    static void apply(ConfigurableEnvironment environment) {
        environment.getPropertySources().remove(NAME);
        ConfigurationPropertyName root = ConfigurationPropertyName.of(UnknownPropertiesCheck.PREFIX);
        List<PropertySource<?>> lowestFirst = new ArrayList<>();
        environment.getPropertySources().forEach(lowestFirst::add);
        Collections.reverse(lowestFirst);
        Map<ConfigurationPropertyName, ConfigurationProperty> merged = new LinkedHashMap<>();
        Map<ConfigurationPropertyName, Set<String>> writersOfList = new HashMap<>();
        for (PropertySource<?> source : lowestFirst) {
            if (ConfigurationPropertySources.isAttachedConfigurationPropertySource(source)
                    || !(ConfigurationPropertySource.from(source) instanceof IterableConfigurationPropertySource
                            iterable)) {
                continue;
            }
            List<ConfigurationProperty> entries = iterable.filter(root::isAncestorOf).stream()
                    .map(iterable::getConfigurationProperty).filter(p -> p != null).toList();
            for (ConfigurationProperty entry : entries) {
                ConfigurationPropertyName name = entry.getName();
                merged.keySet().removeIf(n -> n.equals(name) || n.isAncestorOf(name) || name.isAncestorOf(n));
            }
            for (ConfigurationProperty entry : entries) {
                merged.put(entry.getName(), entry);
                ConfigurationPropertyName list = outermostList(entry.getName());
                if (list != null) {
                    writersOfList.computeIfAbsent(list, l -> new HashSet<>()).add(source.getName());
                }
            }
        }
        Map<String, Object> entries = new LinkedHashMap<>();
        merged.forEach((name, property) -> {
            ConfigurationPropertyName list = outermostList(name);
            if (list != null && writersOfList.get(list).size() > 1) {
                entries.put(key(name), OriginTrackedValue.of(property.getValue(), property.getOrigin()));
            }
        });
        if (!entries.isEmpty()) {
            environment.getPropertySources().addFirst(new OriginTrackedMapPropertySource(NAME, entries, true));
        }
    }

    /** The list that holds {@code name}, the outermost when lists nest; {@code null} when none does. */
    private static ConfigurationPropertyName outermostList(ConfigurationPropertyName name) {
        for (int i = 0; i < name.getNumberOfElements(); i++) {
            if (name.isNumericIndex(i)) {
                return name.chop(i);
            }
        }
        return null;
    }

    /** The name as written: the case of map keys kept, brackets around indexes and keys with other characters. */
    private static String key(ConfigurationPropertyName name) {
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < name.getNumberOfElements(); i++) {
            String element = name.getElement(i, Form.ORIGINAL);
            if (name.isNumericIndex(i) || !PLAIN.matcher(element).matches()) {
                key.append('[').append(element).append(']');
            } else {
                key.append(key.isEmpty() ? "" : ".").append(element);
            }
        }
        return key.toString();
    }
}
