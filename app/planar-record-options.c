/* planar-record-options.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-config.h"

#include "planar-record-options.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <string.h>

struct _PlanarRecordOptions
{
  GObject  parent_instance;

  char    *command;
  char    *working_folder;
  char    *environment;
  char    *logdir;
  guint    duration_ms;
  gboolean nvtx;
};

G_DEFINE_FINAL_TYPE (PlanarRecordOptions, planar_record_options, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_COMMAND,
  PROP_WORKING_FOLDER,
  PROP_ENVIRONMENT,
  PROP_LOGDIR,
  PROP_DURATION_MS,
  PROP_NVTX,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
planar_record_options_finalize (GObject *object)
{
  PlanarRecordOptions *self = PLANAR_RECORD_OPTIONS (object);

  g_free (self->command);
  g_free (self->working_folder);
  g_free (self->environment);
  g_free (self->logdir);
  G_OBJECT_CLASS (planar_record_options_parent_class)->finalize (object);
}

static char **
string_field (PlanarRecordOptions *self,
              guint                prop_id)
{
  switch (prop_id)
    {
    case PROP_COMMAND:
      return &self->command;
    case PROP_WORKING_FOLDER:
      return &self->working_folder;
    case PROP_ENVIRONMENT:
      return &self->environment;
    case PROP_LOGDIR:
      return &self->logdir;
    default:
      return NULL;
    }
}

static void
planar_record_options_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  PlanarRecordOptions *self = PLANAR_RECORD_OPTIONS (object);
  char **field = string_field (self, prop_id);

  if (field != NULL)
    g_value_set_string (value, *field);
  else if (prop_id == PROP_DURATION_MS)
    g_value_set_uint (value, self->duration_ms);
  else if (prop_id == PROP_NVTX)
    g_value_set_boolean (value, self->nvtx);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
planar_record_options_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  PlanarRecordOptions *self = PLANAR_RECORD_OPTIONS (object);
  char **field = string_field (self, prop_id);

  if (field != NULL)
    {
      const char *text = g_value_get_string (value);

      if (g_strcmp0 (*field, text) == 0)
        return;
      g_free (*field);
      *field = g_strdup (text != NULL ? text : "");
    }
  else if (prop_id == PROP_DURATION_MS)
    {
      if (self->duration_ms == g_value_get_uint (value))
        return;
      self->duration_ms = g_value_get_uint (value);
    }
  else if (prop_id == PROP_NVTX)
    {
      if (self->nvtx == g_value_get_boolean (value))
        return;
      self->nvtx = g_value_get_boolean (value);
    }
  else
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  g_object_notify_by_pspec (object, pspec);
}

static void
planar_record_options_class_init (PlanarRecordOptionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = planar_record_options_finalize;
  object_class->get_property = planar_record_options_get_property;
  object_class->set_property = planar_record_options_set_property;

  properties[PROP_COMMAND] = g_param_spec_string ("command", NULL, NULL, "", flags);
  properties[PROP_WORKING_FOLDER] = g_param_spec_string ("working-folder", NULL, NULL, "", flags);
  properties[PROP_ENVIRONMENT] = g_param_spec_string ("environment", NULL, NULL, "", flags);
  properties[PROP_LOGDIR] = g_param_spec_string ("logdir", NULL, NULL, "", flags);
  properties[PROP_DURATION_MS] = g_param_spec_uint ("duration-ms", NULL, NULL, 0, 86400000, 0, flags);
  properties[PROP_NVTX] = g_param_spec_boolean ("nvtx", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
planar_record_options_init (PlanarRecordOptions *self)
{
  self->command = g_strdup ("");
  self->working_folder = g_strdup ("");
  self->environment = g_strdup ("");
  self->logdir = g_strdup ("");
}

PlanarRecordOptions *
planar_record_options_new (void)
{
  return g_object_new (PLANAR_TYPE_RECORD_OPTIONS, NULL);
}

static gboolean
valid_env_name (const char *word,
                gsize       len)
{
  if (len == 0 || g_ascii_isdigit (word[0]))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (word[i]) && word[i] != '_')
      return FALSE;
  return TRUE;
}

GStrv
planar_record_options_build_argv (PlanarRecordOptions  *self,
                                  const char           *cli,
                                  GStrv                *environment,
                                  GError              **error)
{
  g_auto(GStrv) command = NULL;
  g_auto(GStrv) env_words = NULL;
  g_autoptr(GStrvBuilder) argv = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) env = g_strv_builder_new ();
  g_autoptr(GError) local_error = NULL;
  int n_command = 0;

  g_return_val_if_fail (PLANAR_IS_RECORD_OPTIONS (self), NULL);
  g_return_val_if_fail (cli != NULL, NULL);

  if (self->command[strspn (self->command, " \t\n")] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Enter the command to record"));
      return NULL;
    }
  if (!g_shell_parse_argv (self->command, &n_command, &command, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The command line cannot be read: %s"),
                   local_error->message);
      return NULL;
    }
  g_clear_error (&local_error);
  if (self->environment[0] != '\0'
      && !g_shell_parse_argv (self->environment, NULL, &env_words, &local_error)
      && !g_error_matches (local_error, G_SHELL_ERROR, G_SHELL_ERROR_EMPTY_STRING))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The environment cannot be read: %s"),
                   local_error->message);
      return NULL;
    }
  for (guint i = 0; env_words != NULL && env_words[i] != NULL; i++)
    {
      const char *equals = strchr (env_words[i], '=');

      if (equals == NULL || !valid_env_name (env_words[i], (gsize) (equals - env_words[i])))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("“%s” is not an environment entry: write NAME=value"), env_words[i]);
          return NULL;
        }
      g_strv_builder_add (env, env_words[i]);
    }
  if (self->working_folder[0] != '\0' && !g_file_test (self->working_folder, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The working folder %s does not exist"),
                   self->working_folder);
      return NULL;
    }
  if (self->logdir[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Choose the log directory"));
      return NULL;
    }

  g_strv_builder_add_many (argv, cli, "record", "--logdir", self->logdir, NULL);
  if (self->duration_ms > 0)
    {
      g_autofree char *duration = g_strdup_printf ("--duration-ms=%u", self->duration_ms);

      g_strv_builder_add (argv, duration);
    }
  if (self->nvtx)
    g_strv_builder_add (argv, "--nvtx");
  g_strv_builder_add (argv, "--");
  g_strv_builder_addv (argv, (const char **) command);
  if (environment != NULL)
    *environment = g_strv_builder_end (env);
  return g_strv_builder_end (argv);
}
