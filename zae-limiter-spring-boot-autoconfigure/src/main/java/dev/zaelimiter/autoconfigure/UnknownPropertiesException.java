package dev.zaelimiter.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Properties under {@code zae.limiter} that no zae-limiter setting has, such as a misspelled {@code capacty}: raised
 * at startup, so that a typo stops the application instead of silently dropping a limit or keeping a default.
 */
public class UnknownPropertiesException extends RuntimeException {

    /**
     * One unknown property.
     *
     * @param property the full name as bound, such as {@code zae.limiter.resources.gpt-4.limits.rpm.capacty}
     * @param origin where it was written (file and line), or {@code null}
     * @param parent the deepest known part of the name, such as {@code zae.limiter.resources.gpt-4.limits.rpm}
     * @param unknown the first element of the name that is not a setting there, such as {@code capacty}
     * @param suggestion the full name it probably meant, or {@code null} when none is close
     * @param valid the settings allowed at {@code parent}, empty when nothing may be nested there
     */
    public record Unknown(String property, String origin, String parent, String unknown, String suggestion,
            List<String> valid) {
    }

    private final List<Unknown> unknown;

    public UnknownPropertiesException(List<Unknown> unknown) {
        super(unknown.stream().map(u -> u.property() + (u.suggestion() != null
                ? " (did you mean " + u.suggestion() + "?)" : "")).collect(Collectors.joining(", ",
                        "Unknown zae-limiter properties: ", "")));
        this.unknown = List.copyOf(unknown);
    }

    /** The unknown properties, sorted by name. */
    public List<Unknown> unknown() {
        return unknown;
    }
}
