package dev.zaelimiter.autoconfigure;

/**
 * A property that zae-limiter cannot use (a limit declaration, a rule or a setting under {@code zae.limiter}, or the
 * Spring Cloud AWS setting it depends on): names the property, says why, and what to write.
 */
public class InvalidDeclarationException extends RuntimeException {

    private final String property;
    private final String action;

    public InvalidDeclarationException(String property, String reason) {
        this(property, reason, null);
    }

    /**
     * @param action what to write instead, as a sentence; {@code null} lets the failure report derive it from the
     *         property
     */
    public InvalidDeclarationException(String property, String reason, String action) {
        super(property + ": " + reason);
        this.property = property;
        this.action = action;
    }

    /** What to write instead, or {@code null} when the property alone says it. */
    public String action() {
        return action;
    }

    /** The full property path, such as {@code zae.limiter.resources.gpt-4.limits.rpm.schedule[0].cron}. */
    public String property() {
        return property;
    }

    /** Why it was refused and what to write instead. */
    public String reason() {
        return getMessage().substring(property.length() + 2);
    }
}
