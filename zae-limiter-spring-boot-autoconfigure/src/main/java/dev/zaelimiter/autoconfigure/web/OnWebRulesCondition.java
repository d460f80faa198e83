package dev.zaelimiter.autoconfigure.web;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when {@code zae.limiter.web.rules} has at least one rule; shared by the servlet and the WebFlux filter. */
class OnWebRulesCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition("zae-limiter web rules");
        boolean any;
        try {
            any = Binder.get(context.getEnvironment())
                    .bind("zae.limiter.web.rules", Bindable.listOf(ZaeLimiterWebProperties.Rule.class))
                    .map(rules -> !rules.isEmpty())
                    .orElse(false);
        } catch (BindException e) {
            // rules that do not bind (a misspelled key, a list entry overridden from the environment): the
            // unknown-key check and the binding of the properties report them once the conditions are evaluated
            return ConditionOutcome.match(message.because("zae.limiter.web.rules has entries that do not bind yet"));
        }
        return any ? ConditionOutcome.match(message.found("rules").items("under zae.limiter.web.rules"))
                : ConditionOutcome.noMatch(message.didNotFind("rules").items("under zae.limiter.web.rules"));
    }
}
