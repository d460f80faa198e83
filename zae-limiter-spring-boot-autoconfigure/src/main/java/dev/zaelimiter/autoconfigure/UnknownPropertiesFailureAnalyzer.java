package dev.zaelimiter.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns unknown {@code zae.limiter} properties into a report naming each one and the key it probably meant. */
class UnknownPropertiesFailureAnalyzer extends AbstractFailureAnalyzer<UnknownPropertiesException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnknownPropertiesException cause) {
        StringBuilder description = new StringBuilder("zae-limiter does not know "
                + (cause.unknown().size() == 1 ? "this property" : "these properties") + ":\n");
        StringBuilder action = new StringBuilder();
        for (UnknownPropertiesException.Unknown u : cause.unknown()) {
            description.append("\n    ").append(u.property());
            if (u.origin() != null) {
                description.append(" (").append(u.origin()).append(')');
            }
            if (u.suggestion() != null) {
                description.append("\n        did you mean ").append(u.suggestion()).append('?');
                action.append("Rename '").append(u.property()).append("' to '").append(u.suggestion())
                        .append("'.\n");
            } else if (!u.valid().isEmpty()) {
                action.append("Remove '").append(u.property()).append("', or write one of the settings of '")
                        .append(u.parent()).append("': ").append(String.join(", ", u.valid())).append(".\n");
            } else {
                action.append("Remove '").append(u.property()).append("': '").append(u.parent())
                        .append("' is a single value and has no settings under it.\n");
            }
        }
        description.append("\n\nAn unknown property would otherwise be ignored: a misspelled limit setting keeps"
                + " its default or drops the limit.");
        return new FailureAnalysis(description.toString(), action.toString().strip(), cause);
    }
}
