package dev.zaelimiter.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

import java.lang.annotation.Annotation;

/** The auto-configurations that one of the line's import annotations ({@link ImportMeters}, ...) names. */
public final class ImportedAutoConfigurations {

    private ImportedAutoConfigurations() {
    }

    public static AutoConfigurations of(Class<? extends Annotation> imports) {
        return AutoConfigurations.of(imports.getAnnotation(ImportAutoConfiguration.class).value());
    }
}
