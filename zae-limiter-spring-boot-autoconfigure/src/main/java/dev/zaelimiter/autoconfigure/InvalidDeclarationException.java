package dev.zaelimiter.autoconfigure;

/** A limit declaration under {@code zae.limiter} that cannot be applied; names the property and says why. */
public class InvalidDeclarationException extends RuntimeException {

    private final String property;

    public InvalidDeclarationException(String property, String reason) {
        super(property + ": " + reason);
        this.property = property;
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
